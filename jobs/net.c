/* jobs/net.c: the net family of the AIM7 job catalog (TCP and UDP loopback). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobs/aim7_msgs.h"
#include "jobs/catalog.h"

/*
 * AIM7 asks tcp_test for 90 messages and udp_test for 100, and its loop
 * sends one less of each.
 */
#define TCP_MSGS 89
#define UDP_MSGS 99

/* AIM7's listen backlog; also how many strangers' connections the
 * listener turns away before it gives up on its own. */
#define TCP_BACKLOG 5

/* Closes fd, unless it is not open, keeping the first error. */
static void net_close(int fd, int *err)
{
	if (fd >= 0 && close(fd) && !*err)
		*err = errno;
}

/*
 * A socket bound to 127.0.0.1 on a port the kernel picks, and that
 * address. Loopback only, whatever addresses the machine has; AIM7 binds
 * to the address of its host name, which the kernel routes over the
 * loopback device all the same.
 */
static int net_bound_socket(int type, struct sockaddr_in *addr, int *fdp)
{
	socklen_t len = sizeof(*addr);
	int fd, err;

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr->sin_port = 0;
	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len)) {
		err = errno;
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

static bool same_addr(const struct sockaddr_in *x, const struct sockaddr_in *y)
{
	return x->sin_addr.s_addr == y->sin_addr.s_addr &&
	       x->sin_port == y->sin_port;
}

/* accept(), again when a signal interrupts it. */
static int tcp_accept(int lfd, struct sockaddr_in *peer, int *afdp)
{
	socklen_t len = sizeof(*peer);
	int afd;

	do {
		afd = accept(lfd, (struct sockaddr *)peer, &len);
	} while (afd < 0 && errno == EINTR);
	if (afd < 0)
		return errno;
	*afdp = afd;
	return 0;
}

/*
 * Accepts the connection of end cfd on listener lfd, then looks up cfd's
 * address as AIM7 does at that step. A connection from anyone else
 * (another local program finding the port first) is closed, up to the
 * backlog's worth, and the next one accepted.
 */
static int tcp_accept_own(int lfd, int cfd, int *afdp)
{
	struct sockaddr_in own, peer;
	socklen_t len = sizeof(own);
	int afd, err;

	err = tcp_accept(lfd, &peer, &afd);
	if (err)
		return err;
	if (getsockname(cfd, (struct sockaddr *)&own, &len)) {
		err = errno;
		close(afd);
		return err;
	}
	for (int tries = 0; !same_addr(&peer, &own); tries++) {
		close(afd);
		if (tries == TCP_BACKLOG)
			return ECONNREFUSED;
		err = tcp_accept(lfd, &peer, &afd);
		if (err)
			return err;
	}
	*afdp = afd;
	return 0;
}

/*
 * tcp_test: per op, a listener on 127.0.0.1 with Nagle off (which the
 * accepted end inherits), checked with getsockopt; a second socket
 * connects to it; the accepted end writes 89 messages, the connecting end
 * reads them; the connecting end closes first, then the accepted end and
 * the listener, with the normal handshake. That leaves the connecting
 * end in TIME_WAIT for a minute, as AIM7's does; its port stays free for
 * connections to other listeners, and every op's listener is a new one,
 * so ports do not run out.
 */
static int tcp_run(void *state)
{
	struct sockaddr_in laddr;
	socklen_t len;
	int lfd = -1, cfd = -1, afd = -1, one = 1, nodelay = 0, err;

	err = net_bound_socket(SOCK_STREAM, &laddr, &lfd);
	if (err)
		return err;
	len = sizeof(nodelay);
	if (setsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    getsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &len) ||
	    listen(lfd, TCP_BACKLOG))
		goto out_errno;
	if (!nodelay) {
		err = EPROTO;
		goto out;
	}
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&laddr, sizeof(laddr)))
		goto out_errno;
	err = tcp_accept_own(lfd, cfd, &afd);
	if (err)
		goto out;
	err = aim7_msgs_pass(state, cfd, afd, TCP_MSGS);
	goto out;
out_errno:
	err = errno;
out:
	net_close(cfd, &err);
	net_close(afd, &err);
	net_close(lfd, &err);
	return err;
}

/*
 * udp_test: per op, two UDP sockets bound on 127.0.0.1, the writing one
 * connected to the reading one; 99 datagrams; both closed. The reading
 * socket does not block, so that a datagram lost on loopback is an error
 * after a wait instead of a user stuck in read() for good.
 */
static int udp_run(void *state)
{
	struct sockaddr_in waddr, raddr;
	int wfd = -1, rfd = -1, err;

	err = net_bound_socket(SOCK_DGRAM, &waddr, &wfd);
	if (!err)
		err = net_bound_socket(SOCK_DGRAM | SOCK_NONBLOCK, &raddr,
				       &rfd);
	if (err)
		goto out;
	if (connect(wfd, (struct sockaddr *)&raddr, sizeof(raddr))) {
		err = errno;
		goto out;
	}
	err = aim7_msgs_pass(state, rfd, wfd, UDP_MSGS);
out:
	net_close(rfd, &err);
	net_close(wfd, &err);
	return err;
}

const struct job job_tcp_test = {
	.name = "tcp_test",
	.family = "net",
	.units = JOB_UNITS_AIM7,
	.unit = "TCP/IP Messages",
	.inner_ops = TCP_MSGS,
	.summary = "connect to a new listener on 127.0.0.1, pass 89 messages "
		   "of AIM7's sizes over the connection, close it",
	.syscalls = (const struct job_syscall[]){
		{ "socket", 2, 0 }, { "bind", 1, 0 }, { "getsockname", 2, 0 },
		{ "setsockopt", 1, 0 }, { "getsockopt", 1, 0 },
		{ "listen", 1, 0 }, { "connect", 1, 0 }, { "accept", 1, 0 },
		{ "write", 0, 1 }, { "read", 0, 1 }, { "close", 3, 0 },
		{ NULL, 0, 0 } },
	.deviation = "binds to 127.0.0.1, not to the address of the host "
		     "name as AIM7 does; both go over the loopback device",
	.init = aim7_msgs_stream_init,
	.run = tcp_run,
	.fini = free,
};

const struct job job_udp_test = {
	.name = "udp_test",
	.family = "net",
	.units = JOB_UNITS_AIM7,
	.unit = "UDP/IP DataGrams",
	.inner_ops = UDP_MSGS,
	.summary = "bind two UDP sockets on 127.0.0.1, pass 99 datagrams of "
		   "AIM7's sizes from one to the other, close them",
	.syscalls = (const struct job_syscall[]){
		{ "socket", 2, 0 }, { "bind", 2, 0 }, { "getsockname", 2, 0 },
		{ "connect", 1, 0 }, { "write", 0, 1 }, { "read", 0, 1 },
		{ "close", 2, 0 }, { NULL, 0, 0 } },
	.deviation = "binds to 127.0.0.1, not to the address of the host "
		     "name as AIM7 does; both go over the loopback device",
	.init = aim7_msgs_dgram_init,
	.run = udp_run,
	.fini = free,
};
