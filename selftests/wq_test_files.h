/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq selftests: small files of the kernel's (debugfs knobs, the module's
 * parameters, a task's state, fdinfo), read and written whole. No
 * kselftest harness here: the helper programs (wq_soak) use it too.
 */
#ifndef WQ_TEST_FILES_H
#define WQ_TEST_FILES_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes @val to @path in one write: 0, or -errno (-EIO if cut short). */
static inline int wqt_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : n == (ssize_t)strlen(val) ? 0 : -EIO;
	close(fd);
	return err;
}

/* Reads @path's first line into @buf (NUL-terminated): 0, or -errno / -EIO. */
static inline int wqt_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * How often @name is listed in /sys/kernel/debug/wq/queues with IPC
 * namespace @inum (its inode, as /proc/PID/ns/ipc; 0: in any namespace);
 * -1 without debugfs.
 */
static inline int wqt_debugfs_lists(const char *name, unsigned long inum)
{
	char line[512], n[65];
	unsigned long i;
	int found = 0;
	FILE *f = fopen("/sys/kernel/debug/wq/queues", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%64s %lu", n, &i) == 2 && !strcmp(n, name) &&
		    (!inum || i == inum))
			found++;
	fclose(f);
	return found;
}

/*
 * The scheduler state of a task, from its stat file @path (/proc/PID/stat,
 * /proc/self/task/TID/stat): 'S' asleep, 'R' running, ...; 0 if it cannot
 * be read.
 */
static inline char wqt_task_state(const char *path)
{
	char buf[512], *p;

	if (wqt_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');		/* the command may hold ") " too */
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * A module parameter of wq: read (0 and the value in *@v, or -errno), its
 * value (wqt_param_get(): 0 if unreadable), and set (root).
 */
static inline int wqt_param_read(const char *name, unsigned long *v)
{
	char path[128], buf[32];
	int ret;

	snprintf(path, sizeof(path), "/sys/module/wq/parameters/%s", name);
	ret = wqt_read_file(path, buf, sizeof(buf));
	if (!ret)
		*v = strtoul(buf, NULL, 10);
	return ret;
}

static inline unsigned long wqt_param_get(const char *name)
{
	unsigned long v;

	return wqt_param_read(name, &v) ? 0 : v;
}

static inline int wqt_param_set(const char *name, unsigned long v)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/wq/parameters/%s", name);
	snprintf(buf, sizeof(buf), "%lu\n", v);
	return wqt_write_file(path, buf);
}

/*
 * The objects in use in the slab cache named cache (after a shrink, which
 * also empties KASAN's quarantine of it), or -1 where /proc/slabinfo
 * cannot say.
 */
static inline long wqt_slab_active(const char *cache)
{
	char line[256], name[64], path[128];
	long active = -1, v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	wqt_write_file(path, "1\n");
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 &&
		    !strcmp(name, cache))
			active = v;
	fclose(f);
	return active;
}

/* The objects in use in wq's record cache, or -1 (wqt_slab_active()). */
static inline long wqt_wq_items(void)
{
	return wqt_slab_active("wq_item");
}

/* The sum of a "NAME:\tN" line over the fdinfo of pid's descriptors. */
static inline long wqt_fdinfo_sum(pid_t pid, const char *name)
{
	char path[96], line[128];
	size_t len = strlen(name);
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)(pid ? pid : getpid()));
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%.20s",
			 (int)(pid ? pid : getpid()), e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, name, len) && line[len] == ':')
				n += strtol(line + len + 1, NULL, 10);
		fclose(f);
	}
	closedir(d);
	return n;
}

#endif /* WQ_TEST_FILES_H */
