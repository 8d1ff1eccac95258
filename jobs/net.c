/* jobs/net.c: the net family of the AIM7 job catalog (TCP and UDP loopback). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobs/catalog.h"

/* A small message, so that the loopback stack's per-packet path, not
 * copying, is what the job measures. */
#define NET_MSG_BYTES 64
#define NET_ROUND_TRIPS 50

/* Strangers a TCP listener turns away before giving up, and so the
 * listener's backlog; see tcp_init(). */
#define TCP_ACCEPT_TRIES 8

/* How long a UDP receive waits before the datagram counts as lost. */
#define UDP_TIMEOUT_S 1

/* Both ends of one user's connection, end a the initiator of each round
 * trip and end b the echoer, and the message buffers. */
struct net_state {
	int a;
	int b;
	bool stream;		/* TCP: a message may arrive in pieces */
	uint64_t seq;		/* stamped into each message */
	unsigned char wbuf[NET_MSG_BYTES];
	unsigned char rbuf[NET_MSG_BYTES];
};

static struct net_state *net_alloc(const struct job_ctx *ctx, bool stream)
{
	struct net_state *st = malloc(sizeof(*st));

	if (!st)
		return NULL;
	st->a = -1;
	st->b = -1;
	st->stream = stream;
	st->seq = ctx->seed;
	/* Content the compiler cannot know, so that the copies are real. */
	job_fill_random(st->wbuf, sizeof(st->wbuf), ctx->seed);
	return st;
}

/*
 * A TCP end is closed with a reset (linger 0) rather than the normal
 * handshake, so that no TIME_WAIT socket stays behind holding a loopback
 * port: a long sweep with many users would otherwise run out of
 * ephemeral ports. Nothing is in flight when the job ends.
 */
static void net_close(struct net_state *st, int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fd < 0)
		return;
	if (st->stream)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

static void net_fini(void *state)
{
	struct net_state *st = state;

	net_close(st, st->a);
	net_close(st, st->b);
	free(st);
}

/* Sends one whole message; a blocking send that takes less is EIO. */
static int net_send(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

/*
 * Receives one whole message into st->rbuf. TCP may deliver it in pieces;
 * a UDP datagram comes whole, and MSG_TRUNC makes recv() report its real
 * length so that a longer one is caught too. A timeout (a lost datagram)
 * is ETIMEDOUT, end of stream or a wrong length EIO.
 */
static int net_recv(struct net_state *st, int fd)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(st->rbuf)) {
		n = recv(fd, st->rbuf + got, sizeof(st->rbuf) - got,
			 st->stream ? 0 : MSG_TRUNC);
		if (n < 0)
			return errno == EAGAIN ? ETIMEDOUT : errno;
		if (n == 0)
			return EIO;
		if (!st->stream && (size_t)n != sizeof(st->rbuf))
			return EIO;
		got += (size_t)n;
	}
	return 0;
}

/*
 * After a failed op, empties one end without blocking, so that a message
 * left behind does not make every later op fail too.
 */
static void net_drain(struct net_state *st, int fd)
{
	while (recv(fd, st->rbuf, sizeof(st->rbuf), MSG_DONTWAIT) > 0)
		;
}

/*
 * One op: NET_ROUND_TRIPS times, end a sends a message, end b receives it
 * and sends it back, and end a receives the echo; both copies are checked
 * byte for byte, and the sequence number in each tells a stale message
 * from a new one. Only one message is ever in flight, so nothing blocks.
 */
static int net_run(void *state)
{
	struct net_state *st = state;
	int err = 0;

	for (unsigned int i = 0; i < NET_ROUND_TRIPS; i++) {
		st->seq++;
		memcpy(st->wbuf, &st->seq, sizeof(st->seq));
		err = net_send(st->a, st->wbuf, sizeof(st->wbuf));
		if (err)
			goto out;
		err = net_recv(st, st->b);
		if (err)
			goto out;
		if (memcmp(st->rbuf, st->wbuf, sizeof(st->wbuf))) {
			err = EIO;
			goto out;
		}
		err = net_send(st->b, st->rbuf, sizeof(st->rbuf));
		if (err)
			goto out;
		err = net_recv(st, st->a);
		if (err)
			goto out;
		if (memcmp(st->rbuf, st->wbuf, sizeof(st->wbuf))) {
			err = EIO;
			goto out;
		}
	}
	return 0;
out:
	net_drain(st, st->a);
	net_drain(st, st->b);
	return err;
}

/* A socket bound to 127.0.0.1 on a port the kernel picks, and that
 * address; loopback only, whatever else the machine has. */
static int net_bound_socket(const struct job_ctx *ctx, int type,
			    struct sockaddr_in *addr, int *fdp)
{
	socklen_t len = sizeof(*addr);
	int fd, err;

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr->sin_port = 0;
	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		job_set_reason(ctx, "socket: %s", strerror(err));
		return err;
	}
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len)) {
		err = errno;
		job_set_reason(ctx, "bind 127.0.0.1:0: %s", strerror(err));
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

static int net_setsockopt(const struct job_ctx *ctx, int fd, int level,
			  int opt, const void *val, socklen_t len,
			  const char *what)
{
	int err;

	if (!setsockopt(fd, level, opt, val, len))
		return 0;
	err = errno;
	job_set_reason(ctx, "setsockopt %s: %s", what, strerror(err));
	return err;
}

static bool same_addr(const struct sockaddr_in *x, const struct sockaddr_in *y)
{
	return x->sin_addr.s_addr == y->sin_addr.s_addr &&
	       x->sin_port == y->sin_port;
}

/*
 * The user connects to its own listener on 127.0.0.1 and accepts: end a is
 * the connecting socket, end b the accepted one. The listener is closed
 * once the connection is made. A connection from any other address than
 * end a's (some other local program finding the port) is turned away.
 * Nagle is off on both ends, since each message is sent on its own.
 */
static int tcp_init(const struct job_ctx *ctx, void **state)
{
	struct net_state *st = net_alloc(ctx, true);
	struct sockaddr_in laddr, aaddr, peer;
	socklen_t len = sizeof(aaddr);
	int one = 1, lfd = -1, err;

	if (!st)
		return ENOMEM;
	err = net_bound_socket(ctx, SOCK_STREAM, &laddr, &lfd);
	if (err)
		goto out;
	if (listen(lfd, TCP_ACCEPT_TRIES)) {
		err = errno;
		job_set_reason(ctx, "listen: %s", strerror(err));
		goto out;
	}
	err = net_bound_socket(ctx, SOCK_STREAM, &aaddr, &st->a);
	if (err)
		goto out;
	if (connect(st->a, (struct sockaddr *)&laddr, sizeof(laddr))) {
		err = errno;
		job_set_reason(ctx, "connect 127.0.0.1:%u: %s",
			       ntohs(laddr.sin_port), strerror(err));
		goto out;
	}
	for (int tries = 0; st->b < 0; tries++) {
		if (tries == TCP_ACCEPT_TRIES) {
			err = ECONNREFUSED;
			job_set_reason(ctx, "own connection never accepted");
			goto out;
		}
		len = sizeof(peer);
		st->b = accept4(lfd, (struct sockaddr *)&peer, &len,
				SOCK_CLOEXEC);
		if (st->b < 0) {
			err = errno;
			job_set_reason(ctx, "accept: %s", strerror(err));
			goto out;
		}
		if (!same_addr(&peer, &aaddr)) {
			close(st->b);
			st->b = -1;
		}
	}
	err = net_setsockopt(ctx, st->a, IPPROTO_TCP, TCP_NODELAY, &one,
			     sizeof(one), "TCP_NODELAY");
	if (!err)
		err = net_setsockopt(ctx, st->b, IPPROTO_TCP, TCP_NODELAY,
				     &one, sizeof(one), "TCP_NODELAY");
	if (err)
		goto out;
	close(lfd);
	*state = st;
	return 0;
out:
	if (lfd >= 0)
		close(lfd);
	net_fini(st);
	return err;
}

/*
 * Two UDP sockets on 127.0.0.1, each connected to the other, so that each
 * only ever receives the other's datagrams. Loopback does not lose
 * datagrams in practice, but a receive timeout makes sure a lost one is an
 * error and not a user hung past the end of its level.
 */
static int udp_init(const struct job_ctx *ctx, void **state)
{
	struct net_state *st = net_alloc(ctx, false);
	struct timeval tv = { .tv_sec = UDP_TIMEOUT_S, .tv_usec = 0 };
	struct sockaddr_in aaddr, baddr;
	int err;

	if (!st)
		return ENOMEM;
	err = net_bound_socket(ctx, SOCK_DGRAM, &aaddr, &st->a);
	if (!err)
		err = net_bound_socket(ctx, SOCK_DGRAM, &baddr, &st->b);
	if (err)
		goto out;
	if (connect(st->a, (struct sockaddr *)&baddr, sizeof(baddr)) ||
	    connect(st->b, (struct sockaddr *)&aaddr, sizeof(aaddr))) {
		err = errno;
		job_set_reason(ctx, "connect: %s", strerror(err));
		goto out;
	}
	err = net_setsockopt(ctx, st->a, SOL_SOCKET, SO_RCVTIMEO, &tv,
			     sizeof(tv), "SO_RCVTIMEO");
	if (!err)
		err = net_setsockopt(ctx, st->b, SOL_SOCKET, SO_RCVTIMEO, &tv,
				     sizeof(tv), "SO_RCVTIMEO");
	if (err)
		goto out;
	*state = st;
	return 0;
out:
	net_fini(st);
	return err;
}

const struct job job_tcp_test = {
	.name = "tcp_test",
	.family = "net",
	.unit = "TCP/IP Messages",
	.inner_ops = 2 * NET_ROUND_TRIPS,
	.summary = "echo 64-byte messages over a TCP connection to itself on "
		   "127.0.0.1",
	.syscalls = (const struct job_syscall[]){
		{ "sendto", 2 * NET_ROUND_TRIPS },
		{ "recvfrom", 2 * NET_ROUND_TRIPS }, { NULL, 0 } },
	.init = tcp_init,
	.run = net_run,
	.fini = net_fini,
};

const struct job job_udp_test = {
	.name = "udp_test",
	.family = "net",
	.unit = "UDP/IP DataGrams",
	.inner_ops = 2 * NET_ROUND_TRIPS,
	.summary = "echo 64-byte datagrams between two UDP sockets on "
		   "127.0.0.1",
	.syscalls = (const struct job_syscall[]){
		{ "sendto", 2 * NET_ROUND_TRIPS },
		{ "recvfrom", 2 * NET_ROUND_TRIPS }, { NULL, 0 } },
	.init = udp_init,
	.run = net_run,
	.fini = net_fini,
};
