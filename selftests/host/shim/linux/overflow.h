/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the kernel's overflow checks on the compiler builtins. */
#ifndef _SHIM_LINUX_OVERFLOW_H
#define _SHIM_LINUX_OVERFLOW_H
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
/* as the kernel's: true if (a << s) >> s != a, or s too big */
#define check_shl_overflow(a, s, d) ({					\
	__typeof__(a) _a = (a);						\
	__typeof__(*(d)) *_d = (d);					\
	unsigned int _s = (s);						\
	*_d = _s >= 8 * sizeof(*_d) ? 0 : (__typeof__(*_d))(_a << _s);	\
	_s >= 8 * sizeof(*_d) || (*_d >> _s) != _a;			\
})
#endif
