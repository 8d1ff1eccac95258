/* jobs/aim7_msgs.h: the message loop of AIM7's channel jobs (ipc.c, net.c). */
#ifndef AIMSWEEP_JOBS_AIM7_MSGS_H
#define AIMSWEEP_JOBS_AIM7_MSGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobs/job.h"

/*
 * AIM7's pipe, socket-pair, FIFO, TCP and UDP jobs (ipc.c and net.c) run
 * one loop: write a message into their channel, read it back from the
 * other end, next message. The sizes cycle through AIM7's list of 40
 * (1 byte to 4 KiB), which shared_memory's copies follow as well.
 */
#define AIM7_MSG_MAX 4096

struct aim7_msgs {
	uint64_t *progress;	/* ctx->progress: one per message */
	unsigned int next;	/* the next message's place in the cycle */
	bool datagram;		/* a message must come in one read */
	unsigned char buf[AIM7_MSG_MAX];
};

void aim7_msgs_init(struct aim7_msgs *m, const struct job_ctx *ctx,
		    bool datagram);
/* The size of the next message, moving on in the cycle. */
size_t aim7_msg_size(struct aim7_msgs *m);
/* Passes count messages from wfd to rfd; 0 or a positive errno. */
int aim7_msgs_pass(struct aim7_msgs *m, int rfd, int wfd, unsigned int count);

/* The init() of a job whose state is its messages alone, a struct
 * aim7_msgs of the user's own; its fini() is free(). */
int aim7_msgs_stream_init(const struct job_ctx *ctx, void **state);
int aim7_msgs_dgram_init(const struct job_ctx *ctx, void **state);

#endif
