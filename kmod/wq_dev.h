/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/wq: the misc device and its ioctls. */
#ifndef _WQ_DEV_H
#define _WQ_DEV_H

int wq_dev_init(void);
void wq_dev_exit(void);

#endif /* _WQ_DEV_H */
