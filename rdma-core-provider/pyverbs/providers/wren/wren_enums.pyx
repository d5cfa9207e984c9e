# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
