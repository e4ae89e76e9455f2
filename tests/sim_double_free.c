// SPDX-License-Identifier: GPL-2.0-only
/*
 * kfree() of a freed object is a bug the allocator reports and aborts on.
 *
 * Its own program so that a build which cannot run it is reported as a
 * skip: under ASan or TSan our check would read the freed header, which
 * the sanitizer reports as a use-after-free before we can (they catch
 * double frees themselves), so there it exits 77 with the reason, which
 * ctest shows as "Skipped" (SKIP_RETURN_CODE in CMakeLists.txt).
 */
#include <signal.h>
#include <stdio.h>
#include <linux/slab.h>
#include <sim/report.h>
#include "harness.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEAP_SANITIZER_BUILD 1
#endif
#endif

START_TEST(test_double_free_is_bug)
{
	void *p = kmalloc(8, GFP_KERNEL);

	sim_report_quiet(true);
	kfree(p);
	kfree(p);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc;

#ifdef HEAP_SANITIZER_BUILD
	/* before anything is allocated: LeakSanitizer would report it */
	printf("SKIP: test_double_free_is_bug: the sanitizer detects double "
	       "frees itself\n");
	return 77;
#endif
	s = suite_create("double_free");
	tc = sim_tcase("alloc");
	tcase_add_test_raise_signal(tc, test_double_free_is_bug, SIGABRT);
	suite_add_tcase(s, tc);
	return sim_test_run(s);
}
