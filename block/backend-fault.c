// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault wrapper: a device over any other that fails or delays bios
 * by rules (in the spirit of dm-flakey and fail_make_request), given as
 * text so the command line and the FUSE control files can use the same
 * parser (spec syntax in <sim/bdev.h>).
 *
 * Every rule looks at every bio that reaches the wrapper, in the order
 * the rules were added, so a rule's count or random stream does not
 * depend on the others; the first rule that fires decides the status,
 * latencies add up.  A failed bio is not passed down: the wrapper ends it
 * with the rule's status, as a device that refused the command would.
 * The status is then what the block layer puts in bi_status.
 *
 * Latency is real only in the threaded engine: a timer thread in task
 * context passes the bio down (or fails it) when its time comes, so the
 * lower device may still sleep for a tag.  The deterministic engine has
 * no clock: the bio goes on at once, and the engine's policy decides
 * when its completion runs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/bio.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <sim/rand.h>
#include <sim/trace.h>
#include "backend.h"

DEFINE_SIM_STAT(bdev_fault_injected, "bdev_fault_injected");
DEFINE_SIM_STAT(bdev_fault_delayed, "bdev_fault_delayed");
/* Bios on the latency timer. */
DEFINE_SIM_GAUGE(bdev_fault_timer_pending, "bdev_fault_timer_pending");

#define FAULT_MAX_FIELDS 8
#define FAULT_PPM 1000000u

enum fault_kind {
	FAULT_BIO_ERROR,
	FAULT_SECTOR,
	FAULT_PROB,
	FAULT_LATENCY,
};

static const char *const fault_kind_name[] = {
	[FAULT_BIO_ERROR] = "bio-error",
	[FAULT_SECTOR] = "sector",
	[FAULT_PROB] = "prob",
	[FAULT_LATENCY] = "latency",
};

/* Which bios a rule looks at; none set means all. */
#define FAULT_READ (1u << 0)
#define FAULT_WRITE (1u << 1)
#define FAULT_FLUSH (1u << 2)

struct fault_rule {
	struct list_head list;
	int id;
	enum fault_kind kind;
	blk_status_t status;
	unsigned int dirs;
	u64 nth, seen;	       /* bio-error */
	sector_t start, end;   /* sector, inclusive */
	u32 ppm;	       /* prob */
	bool seeded;
	u64 seed;
	struct sim_rand rng;
	u64 latency_ns;	       /* latency */
	u64 hits;
};

struct fault_dev {
	struct blksim_backend be;
	pthread_mutex_t lock; /* the rules */
	struct list_head rules;
	/*
	 * At most BLKSIM_FAULT_MAX_RULES; written under the lock, read without
	 * it: a bio on a device without rules, every bio of a benchmark,
	 * looks at no list and takes no lock.  A rule added while a bio is
	 * being submitted applies from the next one, as it would a moment
	 * later anyway.
	 */
	int nr_rules;
	int next_id;
	struct blksim_bdev_timer timer;
};

static struct fault_dev *to_fault(struct block_device *bdev)
{
	return container_of(to_backend(bdev), struct fault_dev, be);
}

/* ---- status names ---------------------------------------------------- */

static const struct {
	const char *name;
	blk_status_t status;
} blk_status_names[] = {
	{ "OK", BLK_STS_OK },
	{ "NOTSUPP", BLK_STS_NOTSUPP },
	{ "TIMEOUT", BLK_STS_TIMEOUT },
	{ "NOSPC", BLK_STS_NOSPC },
	{ "TRANSPORT", BLK_STS_TRANSPORT },
	{ "TARGET", BLK_STS_TARGET },
	{ "RESV_CONFLICT", BLK_STS_RESV_CONFLICT },
	{ "MEDIUM", BLK_STS_MEDIUM },
	{ "PROTECTION", BLK_STS_PROTECTION },
	{ "RESOURCE", BLK_STS_RESOURCE },
	{ "IOERR", BLK_STS_IOERR },
	{ "DM_REQUEUE", BLK_STS_DM_REQUEUE },
	{ "AGAIN", BLK_STS_AGAIN },
	{ "DEV_RESOURCE", BLK_STS_DEV_RESOURCE },
	{ "ZONE_OPEN_RESOURCE", BLK_STS_ZONE_OPEN_RESOURCE },
	{ "ZONE_ACTIVE_RESOURCE", BLK_STS_ZONE_ACTIVE_RESOURCE },
	{ "OFFLINE", BLK_STS_OFFLINE },
	{ "DURATION_LIMIT", BLK_STS_DURATION_LIMIT },
	{ "INVAL", BLK_STS_INVAL },
};

/*
 * Whether @s is @name (@prefix: or starts with it), ASCII case folded if
 * @fold.  By hand, not strcmp(): a fuzzer intercepts those and would
 * learn this parser's tables of names as if the code under test had
 * compared them (and the lookups showed in every fuzzed request).
 */
/* @f names a block status: its value in *@st */
static bool status_field(const char *f, int *st)
{
	*st = blksim_blk_status_parse(f);
	return *st >= 0;
}

static bool name_is(const char *s, const char *name, bool fold, bool prefix)
{
	for (; *name; s++, name++) {
		char a = *s, b = *name;

		if (fold) {
			a = tolower((unsigned char)a);
			b = tolower((unsigned char)b);
		}
		if (a != b)
			return false;
	}
	return prefix || !*s;
}

int blksim_blk_status_parse(const char *name)
{
	if (name_is(name, "BLK_STS_", true, true))
		name += 8;
	for (size_t i = 0; i < ARRAY_SIZE(blk_status_names); i++)
		if (name_is(name, blk_status_names[i].name, true, false))
			return blk_status_names[i].status;
	return -1;
}

const char *blksim_blk_status_name(blk_status_t status)
{
	for (size_t i = 0; i < ARRAY_SIZE(blk_status_names); i++)
		if (blk_status_names[i].status == status)
			return blk_status_names[i].name;
	return "?";
}

/* ---- parsing --------------------------------------------------------- */

static bool parse_u64(const char *s, u64 *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* "2500", "2500ns", "40us", "3ms", "1s" */
static bool parse_ns(const char *s, u64 *v)
{
	static const struct {
		const char *sfx;
		u64 mul;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (!*end)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (name_is(end, units[i].sfx, false, false)) {
			if (*v > U64_MAX / units[i].mul)
				return false;
			*v *= units[i].mul;
			return true;
		}
	}
	return false;
}

/* The kind's own field, the second: @arg, in @spec. */
static int fault_parse_arg(struct fault_rule *r, const char *spec, char *arg,
			   char *err, size_t errlen)
{
	switch (r->kind) {
	case FAULT_BIO_ERROR:
		if (!parse_u64(arg, &r->nth) || !r->nth) {
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": bio number \"%s\" is not an integer >= 1",
				     spec, arg);
			return -EINVAL;
		}
		break;
	case FAULT_SECTOR: {
		char *dash = strchr(arg, '-');
		u64 s, e;

		if (dash)
			*dash = '\0';
		if (!dash || !parse_u64(arg, &s) ||
		    !parse_u64(dash + 1, &e) || s > e) {
			if (dash)
				*dash = '-';
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": sector range \"%s\" is not START-END with START <= END",
				     spec, arg);
			return -EINVAL;
		}
		r->start = s;
		r->end = e;
		break;
	}
	case FAULT_PROB: {
		u64 ppm;

		if (!parse_u64(arg, &ppm) || ppm > FAULT_PPM) {
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": probability \"%s\" is not 0..1000000 (per million)",
				     spec, arg);
			return -EINVAL;
		}
		r->ppm = (u32)ppm;
		break;
	}
	case FAULT_LATENCY:
		if (!parse_ns(arg, &r->latency_ns)) {
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": latency \"%s\" is not a number of ns (or with us, ms, s)",
				     spec, arg);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/* The fields after the second: directions, a status, a seed. */
static int fault_parse_opts(struct fault_rule *r, const char *spec,
			    char *const *field, unsigned int nr,
			    char *err, size_t errlen)
{
	bool have_status = false;

	for (unsigned int i = 2; i < nr; i++) {
		const char *f = field[i];
		int st;

		if (name_is(f, "read", false, false)) {
			r->dirs |= FAULT_READ;
		} else if (name_is(f, "write", false, false)) {
			r->dirs |= FAULT_WRITE;
		} else if (name_is(f, "flush", false, false) &&
			   r->kind != FAULT_SECTOR) {
			r->dirs |= FAULT_FLUSH;
		} else if (name_is(f, "seed=", false, true) &&
			   r->kind == FAULT_PROB &&
			   parse_u64(f + 5, &r->seed)) {
			r->seeded = true;
		} else if (r->kind != FAULT_LATENCY && !have_status &&
			   status_field(f, &st)) {
			if (st == BLK_STS_OK) {
				blksim_bdev_err(err, errlen,
					     "fault spec \"%s\": status OK is not a failure",
					     spec);
				return -EINVAL;
			}
			r->status = (blk_status_t)st;
			have_status = true;
		} else {
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": unexpected field \"%s\" (a status such as IOERR, NOSPC, AGAIN, MEDIUM; read, write%s%s)",
				     spec, f,
				     r->kind == FAULT_SECTOR ? "" : ", flush",
				     r->kind == FAULT_PROB ? "; seed=N" : "");
			return -EINVAL;
		}
	}
	return 0;
}

static int fault_parse(const char *spec, struct fault_rule *r, char *err,
		       size_t errlen)
{
	char buf[256], *field[FAULT_MAX_FIELDS], *save, *tok;
	unsigned int nr = 0;
	int kind = -1;
	int ret;

	memset(r, 0, sizeof(*r));
	r->status = BLK_STS_IOERR;
	if (!spec || !*spec) {
		blksim_bdev_err(err, errlen, "fault spec is empty");
		return -EINVAL;
	}
	if (strlen(spec) >= sizeof(buf)) {
		blksim_bdev_err(err, errlen, "fault spec is too long (%zu bytes)",
			     strlen(spec));
		return -EINVAL;
	}
	memcpy(buf, spec, strlen(spec) + 1);
	/* strsep, not strtok: an empty field ("a::b") is an error here */
	for (save = buf; (tok = strsep(&save, ":")) != NULL;) {
		if (nr == FAULT_MAX_FIELDS) {
			blksim_bdev_err(err, errlen,
				     "fault spec \"%s\": too many fields",
				     spec);
			return -EINVAL;
		}
		field[nr++] = tok;
	}

	for (size_t i = 0; i < ARRAY_SIZE(fault_kind_name); i++)
		if (name_is(field[0], fault_kind_name[i], false, false))
			kind = (int)i;
	if (kind < 0) {
		blksim_bdev_err(err, errlen,
			     "fault spec \"%s\": unknown kind \"%s\" (want bio-error, sector, prob or latency)",
			     spec, field[0]);
		return -EINVAL;
	}
	r->kind = kind;
	if (nr < 2 || !*field[1]) {
		static const char *const usage[] = {
			[FAULT_BIO_ERROR] = "bio-error:N[:STATUS][:read|write|flush]",
			[FAULT_SECTOR] = "sector:START-END[:STATUS][:read|write]",
			[FAULT_PROB] = "prob:PPM[:STATUS][:read|write|flush][:seed=S]",
			[FAULT_LATENCY] = "latency:NS[:read|write|flush]",
		};

		blksim_bdev_err(err, errlen, "fault spec \"%s\": want %s", spec,
			     usage[kind]);
		return -EINVAL;
	}

	ret = fault_parse_arg(r, spec, field[1], err, errlen);
	if (ret)
		return ret;
	return fault_parse_opts(r, spec, field, nr, err, errlen);
}

/* The canonical text of a rule, for listings. */
static int fault_format(const struct fault_rule *r, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s:", fault_kind_name[r->kind]);

#define OUT(...) (n += snprintf(buf + min_t(size_t, n, len), \
				len - min_t(size_t, n, len), __VA_ARGS__))
	switch (r->kind) {
	case FAULT_BIO_ERROR:
		OUT("%llu", (unsigned long long)r->nth);
		break;
	case FAULT_SECTOR:
		OUT("%llu-%llu", (unsigned long long)r->start,
		    (unsigned long long)r->end);
		break;
	case FAULT_PROB:
		OUT("%u", r->ppm);
		break;
	case FAULT_LATENCY:
		OUT("%llu", (unsigned long long)r->latency_ns);
		break;
	}
	if (r->kind != FAULT_LATENCY)
		OUT(":%s", blksim_blk_status_name(r->status));
	if (r->dirs & FAULT_READ)
		OUT(":read");
	if (r->dirs & FAULT_WRITE)
		OUT(":write");
	if (r->dirs & FAULT_FLUSH)
		OUT(":flush");
	if (r->kind == FAULT_PROB)
		OUT(":seed=%llu", (unsigned long long)r->seed);
#undef OUT
	return n;
}

int blksim_bdev_fault_check(const char *spec, char *err, size_t errlen)
{
	struct fault_rule r;

	return fault_parse(spec, &r, err, errlen);
}

/* ---- rules at run time ------------------------------------------------ */

static struct fault_dev *fault_of(struct block_device *bdev)
{
	if (WARN_ON(!bdev || bdev->bd_ops != &blksim_fault_ops))
		return NULL;
	return to_fault(bdev);
}

int blksim_bdev_fault_add(struct block_device *bdev, const char *spec,
		       char *err, size_t errlen)
{
	struct fault_dev *fd = fault_of(bdev);
	struct fault_rule *r;
	int ret;

	if (!fd) {
		blksim_bdev_err(err, errlen, "not a fault device");
		return -EINVAL;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		blksim_bdev_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = fault_parse(spec, r, err, errlen);
	if (ret) {
		kfree(r);
		return ret;
	}
	if (r->kind == FAULT_PROB) {
		/* unseeded: the engine's seed, so a run's seed replays it */
		if (!r->seeded)
			r->seed = sim_engine_seed();
		sim_rand_seed(&r->rng, r->seed);
	}
	pthread_mutex_lock(&fd->lock);
	if (fd->nr_rules >= BLKSIM_FAULT_MAX_RULES) {
		pthread_mutex_unlock(&fd->lock);
		kfree(r);
		blksim_bdev_err(err, errlen, "too many fault rules (at most %d): remove one with -ID, or clear",
			     BLKSIM_FAULT_MAX_RULES);
		return -ENOSPC;
	}
	r->id = ++fd->next_id;
	list_add_tail(&r->list, &fd->rules);
	__atomic_store_n(&fd->nr_rules, fd->nr_rules + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fd->lock);
	return r->id;
}

int blksim_bdev_fault_remove(struct block_device *bdev, int id)
{
	struct fault_dev *fd = fault_of(bdev);
	struct fault_rule *r, *tmp;
	int ret = -ENOENT;

	if (!fd)
		return -EINVAL;
	pthread_mutex_lock(&fd->lock);
	list_for_each_entry_safe(r, tmp, &fd->rules, list) {
		if (r->id == id) {
			list_del(&r->list);
			__atomic_store_n(&fd->nr_rules, fd->nr_rules - 1,
					 __ATOMIC_RELAXED);
			kfree(r);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&fd->lock);
	return ret;
}

static void fault_clear(struct fault_dev *fd)
{
	struct fault_rule *r, *tmp;

	pthread_mutex_lock(&fd->lock);
	list_for_each_entry_safe(r, tmp, &fd->rules, list) {
		list_del(&r->list);
		kfree(r);
	}
	__atomic_store_n(&fd->nr_rules, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fd->lock);
}

void blksim_bdev_fault_clear(struct block_device *bdev)
{
	struct fault_dev *fd = fault_of(bdev);

	if (fd)
		fault_clear(fd);
}

void blksim_bdev_fault_reset(struct block_device *bdev)
{
	struct fault_dev *fd = fault_of(bdev);

	if (!fd)
		return;
	fault_clear(fd);
	pthread_mutex_lock(&fd->lock);
	fd->next_id = 0;
	pthread_mutex_unlock(&fd->lock);
}

size_t blksim_bdev_fault_list(struct block_device *bdev, char *buf, size_t len)
{
	struct fault_dev *fd = fault_of(bdev);
	struct fault_rule *r;
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	if (!fd)
		return 0;
	pthread_mutex_lock(&fd->lock);
	list_for_each_entry(r, &fd->rules, list) {
		char spec[160];

		fault_format(r, spec, sizeof(spec));
		n += snprintf(buf + min(n, len), len - min(n, len),
			      "%d %s hits=%llu\n", r->id, spec,
			      (unsigned long long)r->hits);
	}
	pthread_mutex_unlock(&fd->lock);
	return n;
}

int blksim_bdev_fault_command(struct block_device *bdev, const char *line,
			   char *err, size_t errlen)
{
	char buf[256];
	size_t n;
	u64 id;

	if (!line)
		line = "";
	while (isspace((unsigned char)*line))
		line++;
	n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	if (n >= sizeof(buf)) {
		blksim_bdev_err(err, errlen, "fault command is too long");
		return -EINVAL;
	}
	memcpy(buf, line, n);
	buf[n] = '\0';

	if (!strcmp(buf, "clear")) {
		if (!fault_of(bdev)) {
			blksim_bdev_err(err, errlen, "not a fault device");
			return -EINVAL;
		}
		blksim_bdev_fault_clear(bdev);
		return 0;
	}
	if (buf[0] == '-') {
		int ret;

		if (!parse_u64(buf + 1, &id) || !id || id > INT_MAX) {
			blksim_bdev_err(err, errlen,
				     "fault command \"%s\": want -ID with a rule id",
				     buf);
			return -EINVAL;
		}
		ret = blksim_bdev_fault_remove(bdev, (int)id);
		if (ret == -ENOENT)
			blksim_bdev_err(err, errlen, "no fault rule %llu",
				     (unsigned long long)id);
		return ret;
	}
	return blksim_bdev_fault_add(bdev, buf, err, errlen);
}

/* ---- the bio path ----------------------------------------------------- */

/*
 * What a bio is to the rules' read/write/flush filter: a write with
 * REQ_PREFLUSH is a flush as well, an empty one only a flush.
 */
static unsigned int bio_fault_dir(struct bio *bio)
{
	unsigned int dir = 0;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return FAULT_READ;
	case REQ_OP_WRITE:
		if (bio->bi_iter.bi_size)
			dir |= FAULT_WRITE;
		if (bio->bi_opf & REQ_PREFLUSH)
			dir |= FAULT_FLUSH;
		return dir;
	case REQ_OP_FLUSH:
		return FAULT_FLUSH;
	default:
		return 0;
	}
}

/*
 * Run every rule on one I/O: @dir as above, @sector/@nr_sectors its range
 * (0 sectors for a flush).  Returns the status the first firing rule
 * chose (BLK_STS_OK if none) and the latency to add.
 */
static blk_status_t fault_eval(struct fault_dev *fd, unsigned int dir,
			       sector_t sector, u64 nr_sectors,
			       u64 *latency, int *rule_id)
{
	blk_status_t status = BLK_STS_OK;
	struct fault_rule *r;

	*latency = 0;
	*rule_id = 0;
	if (!__atomic_load_n(&fd->nr_rules, __ATOMIC_RELAXED))
		return BLK_STS_OK;
	pthread_mutex_lock(&fd->lock);
	list_for_each_entry(r, &fd->rules, list) {
		bool fire = false;

		if (r->dirs && !(r->dirs & dir))
			continue;
		switch (r->kind) {
		case FAULT_BIO_ERROR:
			fire = ++r->seen == r->nth;
			break;
		case FAULT_SECTOR:
			fire = nr_sectors && sector <= r->end &&
			       sector + nr_sectors - 1 >= r->start;
			break;
		case FAULT_PROB:
			/* drawn for every bio, so the stream is the seed's */
			fire = sim_rand_below(&r->rng, FAULT_PPM) < r->ppm;
			break;
		case FAULT_LATENCY:
			*latency += r->latency_ns;
			r->hits++;
			break;
		}
		if (fire && status == BLK_STS_OK) {
			status = r->status;
			*rule_id = r->id;
			r->hits++;
		}
	}
	pthread_mutex_unlock(&fd->lock);
	return status;
}

/* A bio with its fault (and delay) decided: ended here, or passed down. */
static void fault_finish(struct blksim_backend *be, struct bio *bio,
			 blk_status_t status)
{
	if (status != BLK_STS_OK)
		blksim_backend_end(be, bio, status);
	else
		be->lower->bd_ops->submit(be->lower, bio);
}

static void fault_submit(struct block_device *bdev, struct bio *bio)
{
	struct fault_dev *fd = to_fault(bdev);
	blk_status_t status;
	u64 latency;
	int rule;

	status = fault_eval(fd, bio_fault_dir(bio), bio->bi_iter.bi_sector,
			    bio_sectors(bio), &latency, &rule);
	if (status != BLK_STS_OK) {
		/* ours to end: counted and held like any backend's bio */
		blksim_backend_start(&fd->be, bio);
		sim_stat_inc(&bdev_fault_injected);
		sim_trace("bdev_fault_inject",
			  "dev=%s op=%u sector=%llu size=%u status=%s rule=%d",
			  bdev->bd_name, (unsigned int)bio_op(bio),
			  (unsigned long long)bio->bi_iter.bi_sector,
			  bio->bi_iter.bi_size, blksim_blk_status_name(status),
			  rule);
	} else {
		/* the lower device counts it in flight */
		blksim_backend_account(&fd->be, bio);
	}

	if (latency) {
		/* counted in either engine; only the threaded one has a clock */
		sim_stat_inc(&bdev_fault_delayed);
		if (blksim_backend_threaded() &&
		    blksim_backend_defer(&fd->be, &fd->timer, latency,
				      &bdev_fault_timer_pending, bio, status,
				      fault_finish))
			return;
		/* no clock, or no timer to be had: go on without the delay */
	}
	fault_finish(&fd->be, bio, status);
}

static int fault_flush(struct block_device *bdev)
{
	struct fault_dev *fd = to_fault(bdev);
	blk_status_t status;
	u64 latency;
	int rule;

	__atomic_fetch_add(&fd->be.cnt.flush_calls, 1, __ATOMIC_RELAXED);
	/* a flush is a flush bio to the rules: sector rules never match */
	status = fault_eval(fd, FAULT_FLUSH, 0, 0, &latency, &rule);
	if (status != BLK_STS_OK) {
		sim_stat_inc(&bdev_fault_injected);
		sim_trace("bdev_fault_inject",
			  "dev=%s op=flush status=%s rule=%d", bdev->bd_name,
			  blksim_blk_status_name(status), rule);
		__atomic_fetch_add(&fd->be.cnt.error_bios, 1,
				   __ATOMIC_RELAXED);
		return blk_status_to_errno(status);
	}
	return fd->be.lower->bd_ops->flush(fd->be.lower);
}

static void fault_destroy(struct block_device *bdev)
{
	struct fault_dev *fd = to_fault(bdev);

	/* what waits on the timer goes down (or fails) first */
	blksim_bdev_timer_stop(&fd->timer);
	blksim_backend_exit(&fd->be);
	fault_clear(fd);
	pthread_mutex_destroy(&fd->lock);
	kfree(fd);
}

const struct blksim_bdev_ops blksim_fault_ops = {
	.name = "fault",
	.submit = fault_submit,
	.flush = fault_flush,
	.poll = blksim_backend_lower_poll,
	.destroy = fault_destroy,
	.lower = blksim_bdev_fault_lower,
};

struct block_device *blksim_bdev_fault_wrap(struct block_device *lower,
					 char *err, size_t errlen)
{
	struct fault_dev *fd;

	if (IS_ERR_OR_NULL(lower)) {
		blksim_bdev_err(err, errlen, "fault: no device to wrap");
		return ERR_PTR(-EINVAL);
	}
	fd = kzalloc(sizeof(*fd), GFP_KERNEL);
	if (!fd) {
		blksim_bdev_err(err, errlen, "fault: out of memory");
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_init(&fd->lock, NULL);
	INIT_LIST_HEAD(&fd->rules);
	blksim_bdev_timer_init(&fd->timer, "fault-timer", SIM_CTX_TASK);
	/* the same device to the layers above, only less reliable */
	blksim_backend_wrap_init(&fd->be, &blksim_fault_ops, lower);
	return &fd->be.bdev;
}

struct block_device *blksim_bdev_fault_lower(struct block_device *bdev)
{
	struct fault_dev *fd = fault_of(bdev);

	return fd ? fd->be.lower : NULL;
}
