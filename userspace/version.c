// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: the library's version and what the loaded module says of itself
 * (wq_module_info(3)): WQ_IOC_MODULE_INFO, and the module's version from
 * sysfs, as modinfo shows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "wq.h"
#include "wq_internal.h"

#define WQ_STR2(x)	#x
#define WQ_STR(x)	WQ_STR2(x)

const char *wq_version(void)
{
	return WQ_STR(WQ_VERSION_MAJOR) "." WQ_STR(WQ_VERSION_MINOR) "."
	       WQ_STR(WQ_VERSION_PATCH);
}

/* /sys/module/wq/version, its first line, into buf ("" if none). */
static void wq_module_version(char *buf, size_t cap)
{
	int saved = errno;
	int fd = open("/sys/module/wq/version", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	errno = saved;
}

int wq_module_info(struct wq_modinfo *out)
{
	struct wq_module_info mi;
	int saved = errno, fd, ret;

	if (!out)
		return -EFAULT;
	fd = open(WQ_DEV_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		errno = saved;
		return ret;
	}
	ret = wq_module_info_fd(fd, &mi);
	close(fd);
	if (ret < 0)
		return ret;
	memset(out, 0, sizeof(*out));
	out->abi_version = mi.abi_version;
	out->features = mi.features;
	out->key_max = mi.key_max;
	out->batch_max = mi.batch_max;
	out->max_queues = mi.max_queues;
	out->default_max_items = mi.default_max_items;
	out->max_items_limit = mi.max_items_limit;
	out->unpriv_max_items = mi.unpriv_max_items;
	out->default_max_tracked = mi.default_max_tracked;
	out->unpriv_max_tracked = mi.unpriv_max_tracked;
	out->user_max_queues = mi.user_max_queues;
	out->user_queues = mi.user_queues;
	out->user_max_key_bytes = mi.user_max_key_bytes;
	out->user_key_bytes = mi.user_key_bytes;
	out->key_cost = mi.key_cost;
	wq_module_version(out->version, sizeof(out->version));
	return 0;
}
