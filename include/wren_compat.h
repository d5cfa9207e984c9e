/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What include/linux/wren/wren_if.h needs from the kernel, for user space:
 * bit and mask macros, and little-endian accessors.  Every macro is only
 * defined if the includer (QEMU, for one) does not already have it.
 */
#ifndef WREN_COMPAT_H
#define WREN_COMPAT_H

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>

#ifndef BIT
#define BIT(n)			(1UL << (n))
#endif
#ifndef BIT_ULL
#define BIT_ULL(n)		(1ULL << (n))
#endif
#ifndef GENMASK
#define GENMASK(h, l)		((~0U << (l)) & (~0U >> (31 - (h))))
#endif
#ifndef GENMASK_ULL
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#endif
#ifndef FIELD_GET
#define FIELD_GET(mask, reg)	(((reg) & (mask)) / ((mask) & -(mask)))
#endif
#ifndef FIELD_PREP
#define FIELD_PREP(mask, val)	(((val) * ((mask) & -(mask))) & (mask))
#endif

/* The kernel's one-argument form; C11 wants a message. */
#undef static_assert
#define static_assert(expr, ...)	_Static_assert(expr, #expr)

static inline uint16_t wren_le16(__le16 v) { return le16toh(v); }
static inline uint32_t wren_le32(__le32 v) { return le32toh(v); }
static inline uint64_t wren_le64(__le64 v) { return le64toh(v); }
static inline __le16 wren_to_le16(uint16_t v) { return htole16(v); }
static inline __le32 wren_to_le32(uint32_t v) { return htole32(v); }
static inline __le64 wren_to_le64(uint64_t v) { return htole64(v); }

#endif /* WREN_COMPAT_H */
