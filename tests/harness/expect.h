/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the suites expect of the iomap code a build links, by feature
 * (<sim/iomap_features.h>), never by a tree's name or checksum: one table
 * (expect.c) that serves any tree.  The embedded copy is the baseline;
 * the tests assert it.  Each entry applies when its feature condition
 * holds, and is one of:
 *
 *  - N/A: the tests exercise something this code does not have (a simple
 *    path, the proposal entry points, the dio tracepoints) and are not
 *    run; counted and printed with the reason, never passed;
 *  - CHANGED: a rule a release changed on purpose.  The named tests still
 *    run and assert the baseline; here they must fail with exactly
 *    @expect (the failure message or a part of it), which is then
 *    reported as the rule's change.  A listed test that passes is itself
 *    a failure (STALE: the code went back to the baseline, or the table
 *    is wrong), and so is any other failure;
 *  - KNOWN BUG: as CHANGED, but a bug in the code that the test finds,
 *    reported with its reproducer (@upstream).
 */
#ifndef _SIM_TEST_EXPECT_H
#define _SIM_TEST_EXPECT_H

#include <stdbool.h>

enum expect_kind {
	EXPECT_CHANGED,
	EXPECT_NA,
	EXPECT_BUG,
};

struct expect {
	const char *rule; /* rule ID(s), docs/rules.md */
	enum expect_kind kind;
	bool applies; /* the feature condition, for this build */
	const char *when; /* that condition in words: "no simple path" */
	const char *suite; /* test program */
	const char *tcase; /* Check test case, or "*" */
	const char *tests; /* space-separated test names, or "*" */
	const char *expect; /* CHANGED, BUG: the failure it must give */
	/*
	 * CHANGED loop tests: the baseline still holds in some iterations
	 * (Check's log does not say which), so a pass is no staleness; one
	 * iteration must fail as @expect says.
	 */
	bool some_iterations;
	const char *baseline; /* what the baseline does */
	const char *changed; /* what this code does instead */
	const char *upstream; /* the upstream change (commit subject) */
};

/* Every entry, applying or not (a test checks that each names a test). */
extern const struct expect expect_table[];
extern const unsigned int expect_table_len;

#endif /* _SIM_TEST_EXPECT_H */
