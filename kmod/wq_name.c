// SPDX-License-Identifier: GPL-2.0
/*
 * Queue names: the rule every name follows ([A-Za-z0-9._-]{1,63},
 * zero-padded), for userspace's and kernel callers' names alike.
 */
#include <linux/string.h>

#include "wq_registry.h"

/**
 * wq_check_name() - is @name a valid queue name, zero-padded?
 * @name: [A-Za-z0-9._-]{1,63}, then NUL bytes to the end of the buffer
 *
 * Return: 0 or -EINVAL.
 */
int wq_check_name(const char name[WQ_NAME_MAX])
{
	size_t i, len = strnlen(name, WQ_NAME_MAX);

	if (len == 0 || len == WQ_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = name[i];

		/* ASCII only: the kernel's isalnum() accepts Latin-1 */
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '-')
			return -EINVAL;
	}
	for (; i < WQ_NAME_MAX; i++)
		if (name[i])
			return -EINVAL;
	return 0;
}

/**
 * wq_copy_name() - copy a kernel caller's queue name into a checked buffer
 * @buf: receives the name, zero-padded
 * @name: a NUL-terminated name, [A-Za-z0-9._-]{1,63}
 *
 * Return: 0 or -EINVAL (NULL, too long, or a bad character).
 */
int wq_copy_name(char buf[WQ_NAME_MAX], const char *name)
{
	memset(buf, 0, WQ_NAME_MAX);
	if (!name || strscpy(buf, name, WQ_NAME_MAX) < 0)
		return -EINVAL;
	return wq_check_name(buf);
}
