// SPDX-License-Identifier: GPL-2.0
/* Temporary skeleton: replaced by the real module. */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/fs.h>

static const struct file_operations wq_fops = {
	.owner = THIS_MODULE,
};

static struct miscdevice wq_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "wq",
	.fops = &wq_fops,
	.mode = 0666,
};
module_misc_device(wq_misc);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wq skeleton");
