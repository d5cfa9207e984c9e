// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Classic pcap files, written by hand (libpcap is not needed for this):
 * link type Ethernet, microsecond timestamps from the wall clock so that
 * they line up with the guests' own captures (QEMU's filter-dump).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fabric.h"

#define PCAP_MAGIC_USEC		0xa1b2c3d4U
#define PCAP_LINKTYPE_ETHERNET	1
#define PCAP_SNAPLEN		262144

struct pcap {
	FILE *f;
};

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_usec;
	uint32_t incl_len, orig_len;
};

struct pcap *pcap_open(const char *file)
{
	/* Host byte order: readers tell it from the magic. */
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_USEC, .major = 2, .minor = 4,
		.snaplen = PCAP_SNAPLEN, .linktype = PCAP_LINKTYPE_ETHERNET,
	};
	struct pcap *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->f = fopen(file, "wb");
	if (!pc->f || fwrite(&h, sizeof(h), 1, pc->f) != 1) {
		if (pc->f)
			fclose(pc->f);
		free(pc);
		return NULL;
	}
	return pc;
}

void pcap_write(struct pcap *pc, const uint8_t *f, size_t len)
{
	struct pcap_rec_hdr r;
	struct timespec ts;

	if (!pc)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	r.ts_sec = (uint32_t)ts.tv_sec;
	r.ts_usec = (uint32_t)(ts.tv_nsec / 1000);
	r.incl_len = r.orig_len = (uint32_t)len;
	fwrite(&r, sizeof(r), 1, pc->f);
	fwrite(f, len, 1, pc->f);
}

void pcap_flush(struct pcap *pc)
{
	if (pc)
		fflush(pc->f);
}

void pcap_close(struct pcap *pc)
{
	if (!pc)
		return;
	if (fclose(pc->f))
		perror("fabric: pcap");
	free(pc);
}
