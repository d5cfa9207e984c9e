// SPDX-License-Identifier: GPL-2.0
/*
 * Wren doorbell pages: the doorbell BAR is cut into pages so that every
 * user context can map one of its own.  Page 0 is the kernel's.
 */
#include "wren_dev.h"

/**
 * wren_db_init() - prepare the doorbell page allocator
 * @wdev: the device
 */
void wren_db_init(struct wren_dev *wdev)
{
	ida_init(&wdev->db_pages);
}

/**
 * wren_db_destroy() - tear down the doorbell page allocator
 * @wdev: the device, with every page freed
 */
void wren_db_destroy(struct wren_dev *wdev)
{
	ida_destroy(&wdev->db_pages);
}

/**
 * wren_db_page_alloc() - allocate a doorbell page for a user context
 * @wdev: the device
 * @index: the page's index in the doorbell BAR, on success
 *
 * Return: 0, or -ENOSPC when every page is in use.
 */
int wren_db_page_alloc(struct wren_dev *wdev, u32 *index)
{
	int id;

	id = ida_alloc_range(&wdev->db_pages, WREN_DB_KERNEL_PAGE + 1,
			     wdev->caps.db_page_count - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	*index = id;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_db_page_alloc, WREN);

/**
 * wren_db_page_free() - free a doorbell page
 * @wdev: the device
 * @index: a page from wren_db_page_alloc()
 */
void wren_db_page_free(struct wren_dev *wdev, u32 index)
{
	ida_free(&wdev->db_pages, index);
}
EXPORT_SYMBOL_NS_GPL(wren_db_page_free, WREN);

/**
 * wren_db_page_phys() - the bus address of a doorbell page, for mmap
 * @wdev: the device
 * @index: a page from wren_db_page_alloc()
 *
 * Return: the physical address of the page.
 */
phys_addr_t wren_db_page_phys(struct wren_dev *wdev, u32 index)
{
	return wdev->db_bar_start + ((phys_addr_t)index << WREN_DB_PAGE_SHIFT);
}
EXPORT_SYMBOL_NS_GPL(wren_db_page_phys, WREN);
