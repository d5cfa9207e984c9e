// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Guest ports: one non-blocking UDP socket each, bound to the address
 * the guest's QEMU sends to (remote.port) and sending to the one it
 * listens on (local.port).  QEMU's dgram netdev reads with recv() from
 * anyone, so the fabric's source port does not matter to it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric.h"

/*
 * Bursts from a guest must not be dropped in the kernel before the
 * fabric sees them, or the loss counters would lie: ask for large
 * buffers, beyond rmem_max if we may.
 */
static void big_buffers(int fd)
{
	int sz = 8 << 20;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

int port_open(struct port *pt, const struct port_cfg *c, struct in_addr a)
{
	socklen_t sl = sizeof(pt->local);
	char ip[INET_ADDRSTRLEN];

	memset(pt, 0, sizeof(*pt));
	pt->id = c->id;
	pt->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (pt->fd < 0) {
		perror("fabric: socket");
		return -1;
	}
	big_buffers(pt->fd);
	pt->local.sin_family = AF_INET;
	pt->local.sin_addr = a;
	pt->local.sin_port = htons(c->listen_port);
	if (bind(pt->fd, (struct sockaddr *)&pt->local, sizeof(pt->local)) ||
	    getsockname(pt->fd, (struct sockaddr *)&pt->local, &sl)) {
		fprintf(stderr, "fabric: port %u: bind %s:%u: %s\n", c->id,
			inet_ntop(AF_INET, &a, ip, sizeof(ip)),
			c->listen_port, strerror(errno));
		close(pt->fd);
		return -1;
	}
	pt->peer.sin_family = AF_INET;
	pt->peer.sin_addr = a;
	pt->peer.sin_port = htons(c->peer_port);
	pt->peer_known = c->peer_port != 0;
	return 0;
}

/*
 * 'ID LISTEN PEER' per port (PEER 0 while unknown), written to a
 * temporary file and renamed, so that whoever waits for it (a test, the
 * VM harness) sees either nothing or all of it, and only once the
 * sockets are bound: the file is the "ready" signal.
 */
int ports_file_write(const char *file, const struct port *pts, uint32_t n)
{
	char tmp[4096];
	uint32_t i;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(f, "%u %u %u\n", pts[i].id,
			ntohs(pts[i].local.sin_port),
			pts[i].peer_known ? ntohs(pts[i].peer.sin_port) : 0);
	if (fclose(f) || rename(tmp, file)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * One datagram, or -1 when there is none (or on an error worth only a
 * retry later).  A datagram longer than any frame is dropped and counted.
 */
ssize_t port_recv(struct port *pt, uint8_t *buf, size_t cap)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ssize_t n;

	for (;;) {
		n = recvfrom(pt->fd, buf, cap, MSG_TRUNC,
			     (struct sockaddr *)&from, &fl);
		if (n < 0)
			return -1;
		if ((size_t)n <= cap)
			break;
		pt->st.rx_oversize++;
	}
	if (!pt->peer_known && fl == sizeof(from)) {
		pt->peer = from;
		pt->peer_known = true;
	}
	return n;
}

void port_send(struct port *pt, const uint8_t *f, size_t len)
{
	if (!pt->peer_known) {
		pt->st.tx_no_peer++;
		return;
	}
	/*
	 * A full socket buffer or a guest that is not listening yet: the
	 * frame is lost, as on a wire; count it and carry on.
	 */
	if (sendto(pt->fd, f, len, 0, (struct sockaddr *)&pt->peer,
		   sizeof(pt->peer)) < 0) {
		pt->st.tx_errors++;
		return;
	}
	pt->st.tx_frames++;
	pt->st.tx_bytes += len;
}

/*
 * Datagrams the kernel dropped on the port's socket, its receive buffer
 * full: they never reached the fabric, so no other counter has them.
 */
uint64_t port_sock_drops(const struct port *pt)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mi);

	if (getsockopt(pt->fd, SOL_SOCKET, SO_MEMINFO, mi, &l) ||
	    l <= SK_MEMINFO_DROPS * sizeof(*mi))
		return 0;
	return mi[SK_MEMINFO_DROPS];
}
