// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl version (also --version, -V): wqctl's version (the libwq headers
 * it was built with), the libwq it runs with, and the loaded module's
 * (/sys/module/wq/version) with its ABI, features and the caller's quota
 * use (wq_module_info()). No module is no failure: it says so.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "wqctl.h"

#define STR2(x)	#x
#define STR(x)	STR2(x)
#define WQCTL_VERSION \
	STR(WQ_VERSION_MAJOR) "." STR(WQ_VERSION_MINOR) "." STR(WQ_VERSION_PATCH)

static const struct {
	uint32_t bit;
	const char *name;
} features[] = {
	{ WQ_FEATURE_ADD_OUTCOME, "add-outcome" },
	{ WQ_FEATURE_KEY_STATE, "key-state" },
	{ WQ_FEATURE_PRIORITY, "priority" },
	{ WQ_FEATURE_KEY_CALLS, "key-calls" },
	{ WQ_FEATURE_DONE_GET, "done-get" },
	{ WQ_FEATURE_URING, "io_uring" },
};

#define NR_FEATURES	(sizeof(features) / sizeof(features[0]))

/* The module's version without /dev/wq (loaded but not openable). */
static void sysfs_version(char *buf, size_t cap)
{
	FILE *f = fopen("/sys/module/wq/version", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)cap, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void print_text(const struct wq_modinfo *mi, int err, const char *ver)
{
	const char *sep = "";

	printf("wqctl %s\nlibwq %s\n", WQCTL_VERSION, wq_version());
	if (err == -ENOENT && !*ver) {
		puts("module: not loaded (no " WQ_DEV_PATH ")");
		return;
	}
	if (err < 0) {
		printf("module %s (" WQ_DEV_PATH ": %s, %s)\n", *ver ? ver : "unknown",
		       strerror(-err), err_name(err));
		return;
	}
	printf("module %s\nabi: %u\nfeatures: ", *ver ? ver : "unknown",
	       mi->abi_version);
	for (size_t i = 0; i < NR_FEATURES; i++) {
		if (!(mi->features & features[i].bit))
			continue;
		printf("%s%s", sep, features[i].name);
		sep = ",";
	}
	printf("%s\n", *sep ? "" : "none");
	printf("queues: %u of user_max_queues=%u (yours)\n", mi->user_queues,
	       mi->user_max_queues);
	printf("key_bytes: %llu of user_max_key_bytes=%llu (yours)\n",
	       (unsigned long long)mi->user_key_bytes,
	       (unsigned long long)mi->user_max_key_bytes);
	printf("max_items: default %u, unprivileged at most %u, at most %u\n",
	       mi->default_max_items, mi->unpriv_max_items, mi->max_items_limit);
}

static void print_json(const struct wq_modinfo *mi, int err, const char *ver)
{
	json_object();
	json_str("wqctl", WQCTL_VERSION);
	json_str("libwq", wq_version());
	if (err == -ENOENT && !*ver) {
		json_null("module");
		json_end_object();
		return;
	}
	json_key("module");
	json_object();
	if (*ver)
		json_str("version", ver);
	else
		json_null("version");
	if (err < 0) {
		json_str("error", err_name(err) + 1);
	} else {
		json_u64("abi_version", mi->abi_version);
		json_key("features");
		json_array();
		for (size_t i = 0; i < NR_FEATURES; i++)
			if (mi->features & features[i].bit)
				json_string(features[i].name);
		json_end_array();
		json_u64("user_queues", mi->user_queues);
		json_u64("user_max_queues", mi->user_max_queues);
		json_u64("user_key_bytes", mi->user_key_bytes);
		json_u64("user_max_key_bytes", mi->user_max_key_bytes);
		json_u64("key_cost", mi->key_cost);
		json_u64("max_queues", mi->max_queues);
		json_u64("default_max_items", mi->default_max_items);
		json_u64("unpriv_max_items", mi->unpriv_max_items);
		json_u64("max_items_limit", mi->max_items_limit);
		json_u64("key_max", mi->key_max);
		json_u64("batch_max", mi->batch_max);
	}
	json_end_object();
	json_end_object();
}

int cmd_version(struct ctx *c)
{
	struct wq_modinfo mi;
	char ver[64];
	int err = wq_module_info(&mi);

	if (err == 0 && mi.version[0])
		snprintf(ver, sizeof(ver), "%s", mi.version);
	else
		sysfs_version(ver, sizeof(ver));
	if (c->json)
		print_json(&mi, err, ver);
	else
		print_text(&mi, err, ver);
	return RC_OK;
}
