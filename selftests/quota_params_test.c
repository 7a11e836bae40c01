// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas, the key counts' parameters (the fixture: wq_test_quota.h): the
 * unprivileged ceilings of a queue's attributes, the ranges of
 * default_max_items and max_items_limit, and the defaults capped at the
 * limit and at the ceilings. The tests set these system-wide for a
 * moment; the fixture puts them back.
 */
#define _GNU_SOURCE
#include <limits.h>

#include "wq_test_quota.h"

/* ---- ceilings ---------------------------------------------------------- */

static int ceilings(void *arg)
{
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd;

	(void)arg;
	CHILD_CHECK(raw_module_info(&mi) == 0);
	fd = raw_open_dev();
	CHILD_CHECK(fd >= 0);
	qname(name, "ceil", 0);
	CHILD_CHECK(raw_create(fd, name, NULL, mi.unpriv_max_items + 1, 0) ==
		    EINVAL);
	CHILD_CHECK(raw_create(fd, name, NULL, 0, mi.unpriv_max_tracked + 1) ==
		    EINVAL);
	CHILD_CHECK(raw_create(fd, name, NULL, mi.unpriv_max_items,
			       mi.unpriv_max_tracked) == 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	close(fd);
	return 0;
}

TEST_F(quota, unprivileged_ceilings)
{
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd;

	EXPECT_EQ(0, as_user(UID_A, ceilings, NULL));
	/* root may ask for more */
	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_LT(mi.unpriv_max_items, mi.max_items_limit);
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	qname(name, "ceilroot", 0);
	EXPECT_EQ(0, raw_create(fd, name, NULL, mi.unpriv_max_items + 1, 0));
	EXPECT_EQ(0, wq_destroy(name));
	close(fd);
}

/*
 * A count of keys out of its range is refused, at 0 and past 1M alike
 * (UINT_MAX was taken before). The test sets these two system-wide for
 * a moment; the fixture puts them back.
 */
TEST_F(quota, count_limits_refuse_what_is_out_of_range)
{
	static const char *const names[] = {
		"default_max_items", "max_items_limit",
	};
	static const unsigned long bad[] = { 0, (1UL << 20) + 1, UINT_MAX };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		unsigned long old = wqt_param_get(names[i]);

		ASSERT_LT(0UL, old);
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			EXPECT_EQ(-EINVAL, wqt_param_set(names[i], bad[j]))
				TH_LOG("%s=%lu", names[i], bad[j]);
			EXPECT_EQ(old, wqt_param_get(names[i]));
		}
		/* past what a uint holds: the parser's own ERANGE */
		EXPECT_EQ(-ERANGE, wqt_param_set(names[i], 1UL << 32));
		EXPECT_EQ(old, wqt_param_get(names[i]));
		/* the ends of the range are taken */
		EXPECT_EQ(0, wqt_param_set(names[i], 1));
		EXPECT_EQ(1UL, wqt_param_get(names[i]));
		EXPECT_EQ(0, wqt_param_set(names[i], 1UL << 20));
		EXPECT_EQ(1UL << 20, wqt_param_get(names[i]));
		EXPECT_EQ(0, wqt_param_set(names[i], old));
		EXPECT_EQ(old, wqt_param_get(names[i]));
	}
}

/*
 * Creates @name with the defaults: 0 if it got @items and @tracked (then
 * destroyed), else the create's -errno, or 1 (printed).
 */
static int create_with_defaults(const char *name, uint32_t items,
				uint32_t tracked)
{
	struct wq_stats st = { 0 };
	int fd = wq_create(name, NULL), ret = 0;

	if (fd < 0)
		return fd;
	if (wq_stat(fd, &st) || st.max_items != items ||
	    st.max_tracked != tracked) {
		fprintf(stderr, "# %s: max_items %u, max_tracked %u; want %u, %u\n",
			name, st.max_items, st.max_tracked, items, tracked);
		ret = 1;
	}
	wq_destroy(name);
	wq_close(fd);
	return ret;
}

/* The count parameters a test sets, in the order set_counts() takes. */
static const char *const counts[] = {
	"max_items_limit", "default_max_items", "default_max_tracked",
	"unpriv_max_items", "unpriv_max_tracked",
};

/*
 * Sets the parameters of counts[] to @v; module_info's defaults must then
 * be @items and @tracked.
 */
static void set_counts(struct __test_metadata *_metadata,
		       const unsigned long v[ARRAY_SIZE(counts)],
		       uint32_t items, uint32_t tracked)
{
	struct wq_module_info mi;

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		ASSERT_EQ(0, wqt_param_set(counts[i], v[i]))
			TH_LOG("%s", counts[i]);
	}
	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_EQ(items, mi.default_max_items);
	EXPECT_EQ(tracked, mi.default_max_tracked);
}

/*
 * A limit lowered under the defaults caps them: a queue created with 0
 * gets the limit (it failed with EINVAL before), and module_info says so.
 */
TEST_F(quota, defaults_are_capped_at_the_limit)
{
	char name[WQ_NAME_MAX];
	int fd, ret;

	set_counts(_metadata, (unsigned long[]){ 100, 1000, 1000, 1000, 1000 },
		   100, 100);
	EXPECT_EQ(1000UL, wqt_param_get("default_max_items"));

	qname(name, "cap", 0);
	EXPECT_EQ(0, create_with_defaults(name, 100, 100));
	/* asked for, more than the limit is still refused */
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	ret = raw_create(fd, name, NULL, 101, 0);
	EXPECT_EQ(EINVAL, ret);
	if (!ret)
		wq_destroy(name);
	close(fd);
}

/* A user's create with 0: capped at the ceilings; at a ceiling of 0, none. */
static int capped_child(void *arg)
{
	const bool none = *(const bool *)arg;
	char name[WQ_NAME_MAX];

	qname(name, "capuser", 0);
	CHILD_CHECK(create_with_defaults(name, 50, 40) == (none ? -EINVAL : 0));
	return 0;
}

/*
 * Through /dev/wq the defaults are capped at the unprivileged ceilings
 * too, for every caller (as mq_open() caps msg_default at msg_max), and
 * module_info says what such a create gets. A ceiling of 0 leaves a
 * create with 0 nothing (it got the whole default before); asked for, a
 * count is still root's to give.
 */
TEST_F(quota, defaults_are_capped_at_the_unprivileged_ceilings)
{
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	bool none = false;
	int fd;

	set_counts(_metadata, (unsigned long[]){ 1UL << 20, 1000, 1000, 50, 40 },
		   50, 40);
	EXPECT_EQ(0, as_user(UID_A, capped_child, &none));

	qname(name, "caproot", 0);
	EXPECT_EQ(0, create_with_defaults(name, 50, 40));

	ASSERT_EQ(0, wqt_param_set("unpriv_max_items", 0));
	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_EQ(0U, mi.default_max_items);
	none = true;
	EXPECT_EQ(0, as_user(UID_A, capped_child, &none));
	EXPECT_EQ(-EINVAL, create_with_defaults(name, 0, 40));
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, raw_create(fd, name, NULL, 10, 0));
	EXPECT_EQ(0, wq_destroy(name));
	close(fd);

	/* a tracked ceiling of 0: no idle failure records, as a default of 0 */
	ASSERT_EQ(0, wqt_param_set("unpriv_max_items", 50));
	ASSERT_EQ(0, wqt_param_set("unpriv_max_tracked", 0));
	EXPECT_EQ(0, create_with_defaults(name, 50, 0));
}

TEST_HARNESS_MAIN
