/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small user copies: the ioctl structs (24 to 40 bytes) and short keys that
 * every single-key call moves, a few times each.
 *
 * copy_{from,to}_user() of a size known only at run time goes out of line,
 * through the hardened-usercopy check and a "rep movsb" that costs more to
 * start than to run at these sizes (and that an emulator runs a byte at a
 * time). These copy 8-byte words, then the last bytes, with
 * unsafe_{get,put}_user() inside one user_access_begin() window: the same
 * access_ok() and might_fault(), and a fault anywhere is -EFAULT as
 * before, having copied some bytes or none, as copy_*_user() may. What
 * they leave out: check_object_size() (the kernel side is always a struct
 * or buffer of known size; KASAN still checks each kernel load and store),
 * the usercopy fault injection (fail_usercopy) and KMSAN's hooks: a
 * kernel built with either (CONFIG_FAULT_INJECTION_USERCOPY, CONFIG_KMSAN)
 * gets plain copy_*_user() instead, so that those keep seeing every copy.
 * The kernel side is read and written with get/put_unaligned(), plain
 * loads and stores: a fortified memcpy() could call out while user access
 * is open, which objtool refuses.
 *
 * Context: process context (may fault and sleep).
 */
#ifndef _WQ_UACCESS_H
#define _WQ_UACCESS_H

#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "wq_compat.h"		/* get_unaligned(), put_unaligned() */

/* Copies longer than this go through copy_{from,to}_user(). */
#define WQ_SMALL_COPY	64

/* Whether the word copies may be used at all (see above). */
#define WQ_WORD_COPIES	(IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) && \
			 !IS_ENABLED(CONFIG_KMSAN) &&			\
			 !IS_ENABLED(CONFIG_FAULT_INJECTION_USERCOPY))

/**
 * wq_copy_in() - copy_from_user() for short copies
 * @dst: kernel destination
 * @src: user source
 * @len: bytes
 *
 * Return: 0 or -EFAULT.
 */
static inline int wq_copy_in(void *dst, const void __user *src, size_t len)
{
	const u8 __user *s = src;
	u8 *d = dst;
	u64 w;
	u8 b;

	if (len > WQ_SMALL_COPY || !WQ_WORD_COPIES)
		return copy_from_user(dst, src, len) ? -EFAULT : 0;
	might_fault();
	if (!user_access_begin(src, len))
		return -EFAULT;
	for (; len >= sizeof(w); len -= sizeof(w), s += sizeof(w),
	     d += sizeof(w)) {
		unsafe_get_user(w, (const u64 __user *)s, fault);
		put_unaligned(w, (u64 *)d);
	}
	for (; len; len--, s++, d++) {	/* no side effects in the macro */
		unsafe_get_user(b, s, fault);
		*d = b;
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/**
 * wq_copy_out() - copy_to_user() for short copies
 * @dst: user destination
 * @src: kernel source
 * @len: bytes
 *
 * Return: 0 or -EFAULT.
 */
static inline int wq_copy_out(void __user *dst, const void *src, size_t len)
{
	const u8 *s = src;
	u8 __user *d = dst;
	u64 w;

	if (len > WQ_SMALL_COPY || !WQ_WORD_COPIES)
		return copy_to_user(dst, src, len) ? -EFAULT : 0;
	might_fault();
	if (!user_access_begin(dst, len))
		return -EFAULT;
	for (; len >= sizeof(w); len -= sizeof(w), s += sizeof(w),
	     d += sizeof(w)) {
		w = get_unaligned((const u64 *)s);
		unsafe_put_user(w, (u64 __user *)d, fault);
	}
	for (; len; len--, s++, d++)
		unsafe_put_user(*s, d, fault);
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

#endif /* _WQ_UACCESS_H */
