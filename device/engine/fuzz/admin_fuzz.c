// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a hostile driver.
 *
 * The input is a script of operations on an enabled device: post an admin
 * command (64 bytes from the input, with the right phase), ring a doorbell
 * register of the doorbell BAR, write a register of BAR0, or put bytes
 * into guest memory (which the device may read as rings or page lists),
 * or have the host inject a fault: its request's text from the input,
 * which the parser must refuse or turn into a valid fault, then time
 * moved on so that late completions and keep-alives come.  The fake host of the unit tests provides guest memory and time.
 * AddressSanitizer and UBSan do the judging: the device must refuse,
 * never crash, leak or touch memory outside what it was given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"
#include "../tests/fake_env.h"

#define AQ		(FAKE_MEM_BASE + 0x0000)
#define ACQ		(FAKE_MEM_BASE + 0x1000)
#define AEQ		(FAKE_MEM_BASE + 0x2000)
#define AQ_LOG		4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_env env;
	struct weng_config cfg;
	struct weng *e;
	uint16_t tail = 0;

	fake_env_init(&env);
	weng_config_defaults(&cfg);
	cfg.max_qp = 8;
	cfg.max_cq = 8;
	cfg.max_mr = 8;
	cfg.max_ah = 8;
	/* Few counter sets, so that exhaustion and reuse are reached too. */
	cfg.max_counter_set = 4;
	cfg.db_page_count = 4;
	/*
	 * Small queues and transport tables: the defaults size tables of
	 * thousands of entries, whose setup and teardown cost far more than
	 * the input (50 runs/s instead of thousands).
	 */
	cfg.max_qp_depth = 64;
	cfg.max_cq_depth = 64;
	cfg.max_eq_depth = 64;
	cfg.tc_cache = 16;
	cfg.tc_rx_cache = 16;
	cfg.max_srq = 8;
	cfg.max_pd = 8;
	e = weng_create(&cfg, &fake_env_ops, &env);
	if (!e)
		abort();
	weng_reg_write(e, WREN_REG_AQ_BASE_LO, (uint32_t)AQ, 4);
	weng_reg_write(e, WREN_REG_AQ_BASE_HI, AQ >> 32, 4);
	weng_reg_write(e, WREN_REG_AQ_CFG, AQ_LOG, 4);
	weng_reg_write(e, WREN_REG_ACQ_BASE_LO, (uint32_t)ACQ, 4);
	weng_reg_write(e, WREN_REG_ACQ_BASE_HI, ACQ >> 32, 4);
	weng_reg_write(e, WREN_REG_ACQ_CFG, AQ_LOG, 4);
	weng_reg_write(e, WREN_REG_AEQ_BASE_LO, (uint32_t)AEQ, 4);
	weng_reg_write(e, WREN_REG_AEQ_BASE_HI, AEQ >> 32, 4);
	weng_reg_write(e, WREN_REG_AEQ_CFG, 4, 4);
	weng_reg_write(e, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE, 4);

	while (size >= 1) {
		uint8_t op = *data++;

		size--;
		switch (op % 5) {
		case 0: {	/* an admin command */
			struct wren_admin_cmd cmd;
			uint32_t slot = tail & ((1U << AQ_LOG) - 1);

			if (size < sizeof(cmd))
				goto out;
			memcpy(&cmd, data, sizeof(cmd));
			data += sizeof(cmd);
			size -= sizeof(cmd);
			cmd.hdr.flags = (cmd.hdr.flags & ~WREN_ADMIN_FLAG_PHASE) |
					wren_ring_phase(tail, AQ_LOG);
			memcpy(fake_env_ptr(&env, AQ + slot * sizeof(cmd),
					    sizeof(cmd)), &cmd, sizeof(cmd));
			tail++;
			weng_reg_write(e, WREN_REG_AQ_DB, tail, 4);
			break;
		}
		case 1: {	/* a doorbell: 2 bytes of offset, 4 of value */
			uint32_t off, val;

			if (size < 6)
				goto out;
			off = (data[0] | data[1] << 8) % (4 * WREN_DB_PAGE_SIZE);
			memcpy(&val, data + 2, 4);
			weng_db_write(e, off, val, 4);
			data += 6;
			size -= 6;
			break;
		}
		case 2: {	/* a BAR0 register */
			uint32_t off, val;

			if (size < 6)
				goto out;
			off = (data[0] | data[1] << 8) % WREN_REG_BAR_SIZE;
			memcpy(&val, data + 2, 4);
			weng_reg_write(e, off & ~3U, val, 4);
			data += 6;
			size -= 6;
			break;
		}
		case 3: {	/* bytes into guest memory, past the admin rings */
			uint32_t off, len;

			if (size < 4)
				goto out;
			off = 0x10000 + (data[0] | data[1] << 8) * 8;
			len = data[2] + 1;
			data += 3;
			size -= 3;
			if (len > size)
				len = size;
			memcpy(fake_env_ptr(&env, FAKE_MEM_BASE + off, len),
			       data, len);
			data += len;
			size -= len;
			break;
		}
		case 4: {	/* a fault: length, text, then ms of time */
			struct weng_fault_req req;
			const char *why;
			char text[40];
			uint32_t len;

			if (size < 2)
				goto out;
			len = data[0] % sizeof(text);
			if (len + 2 > size)
				goto out;
			memcpy(text, data + 1, len);
			text[len] = '\0';
			if (!weng_fault_parse(text, &req, &why)) {
				char back[128];

				weng_fault_inject(e, &req);
				weng_fault_describe(e, back, sizeof(back));
			}
			fake_env_advance(&env, data[len + 1] * 10000000ULL);
			data += len + 2;
			size -= len + 2;
			break;
		}
		}
	}
out:
	weng_destroy(e);
	fake_env_fini(&env);
	return 0;
}
