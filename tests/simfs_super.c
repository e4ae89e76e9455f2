// SPDX-License-Identifier: GPL-2.0-only
/*
 * The superblock's fields, each against the range format.h writes down
 * for it (F-02), in both slots (F-03): a value out of range in a slot
 * whose checksum holds refuses the image, fsck and mount alike, with the
 * field named, whether that slot is the newer or the older one; only a
 * missing magic, a bad checksum or a short write makes a slot torn, and
 * the other slot is used.
 *
 * Every case runs on two images, one whose newest generation is in slot
 * 1 and one whose newest is in slot 0, and edits each slot of each: the
 * edited slot is resealed, so the checksum is never what finds it.
 */
#include <fcntl.h>
#include "simfs_image.h"
#include "simfs_ram.h"

#define BS 4096
#define DEV (4 * MiB)

static u8 *pristine;
static int newer; /* the newer slot of the image under test */

/*
 * mkfs, a mount with an inline file and an extent file, unmount; with
 * @newest 0, one commit more so the newest generation is in slot 0.
 */
static void make_image(int newest)
{
	struct super_block *sb;
	struct simfs_inode_info *f;
	struct file *file;
	char *buf = abuf(8192, 7);

	ram_dev(DEV, 512);
	do_mkfs(BS);
	sb = do_mount();
	f = simfs_create(root_of(sb), "inline", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR);
	ck_assert_int_eq(rw(file, true, false, "fourteen bytes", 14, 0), 14);
	simfs_file_release(file);
	ck_assert(f->flags & SIMFS_IFL_INLINE);
	f = simfs_create(root_of(sb), "blocks", S_IFREG | 0644, 0, 0, false);
	file = simfs_file_open(f, O_RDWR | O_DIRECT);
	ck_assert_int_eq(rw(file, true, true, buf, 8192, 0), 8192);
	simfs_file_release(file);
	if (!newest)
		ck_assert_int_eq(simfs_commit(SIMFS_SB(sb)), 0);
	do_umount(sb);
	free(buf);
	newer = newest;
	pristine = malloc(DEV);
	memcpy(pristine, blksim_bdev_ram_data(bdev), DEV);
	ck_assert_uint_eq(fsck_errors(), 0);
}

static void drop_image(void)
{
	put_dev();
	free(pristine);
	pristine = NULL;
}

static void restore(void)
{
	memcpy(blksim_bdev_ram_data(bdev), pristine, DEV);
}

static struct simfs_dsb *slot_of(int slot)
{
	return (void *)((u8 *)blksim_bdev_ram_data(bdev) + slot * BS);
}

/* @len bytes at byte @off of slot @slot := little-endian @v, resealed. */
static void poke(int slot, size_t off, size_t len, u64 v)
{
	u8 *p = (u8 *)slot_of(slot) + off;

	for (size_t i = 0; i < len; i++, v >>= 8)
		p[i] = i < 8 ? (u8)v : 0;
	simfs_dsb_seal(slot_of(slot));
}

static u64 peek(int slot, size_t off, size_t len)
{
	const u8 *p = (const u8 *)slot_of(slot) + off;
	u64 v = 0;

	for (size_t i = len < 8 ? len : 8; i--;)
		v = v << 8 | p[i];
	return v;
}

#define AT(f) offsetof(struct simfs_dsb, f), sizeof(((struct simfs_dsb *)0)->f)
#define F(f) AT(f), #f

/* Out of range in either slot: both refuse, naming @name. */
static void refused(size_t off, size_t len, const char *name, u64 v)
{
	char what[128];

	for (int slot = 0; slot < 2; slot++) {
		restore();
		poke(slot, off, len, v);
		snprintf(what, sizeof(what),
			 "%s %llu in slot %d (slot %d "
			 "newer)",
			 name, (unsigned long long)v, slot, newer);
		fsck_and_mount_refuse(what, name);
	}
}

/* Accepted: fsck clean, mounted, unmounted, clean again. */
static void clean_and_mounts(const char *what)
{
	char first[256] = "";
	struct simfs_fsck_report r = { .msg = first_error, .arg = first };

	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	ck_assert_msg(!r.errors, "%s: fsck: %s", what, first);
	do_umount(do_mount());
	ck_assert_msg(!fsck_errors(), "%s: not clean after a mount", what);
}

/* In range: accepted with @v in both slots. */
static void accepted(size_t off, size_t len, const char *name, u64 v)
{
	char what[128];

	restore();
	poke(0, off, len, v);
	poke(1, off, len, v);
	snprintf(what, sizeof(what), "%s %llu in both slots", name,
		 (unsigned long long)v);
	clean_and_mounts(what);
}

/*
 * A field only mkfs writes: @v in one slot and not the other refuses
 * the image, naming it; in both it is accepted (when in range).
 */
static void must_agree(size_t off, size_t len, const char *name, u64 v)
{
	refused(off, len, name, v);
	accepted(off, len, name, v);
}

/* A field a commit writes: any value, in either slot. */
static void any_value(size_t off, size_t len, const char *name, u64 v)
{
	char what[128];

	for (int slot = 0; slot < 2; slot++) {
		restore();
		poke(slot, off, len, v);
		snprintf(what, sizeof(what), "%s %llu in slot %d", name,
			 (unsigned long long)v, slot);
		clean_and_mounts(what);
	}
}

/* fsck's notes, one a line */
static void add_note(void *arg, bool error, const char *text)
{
	char *notes = arg;

	if (!error)
		snprintf(notes + strlen(notes), 1024 - strlen(notes), "%s\n",
			 text);
}

/*
 * A torn slot, whichever: passed over, the other one's generation used,
 * and fsck notes it.
 */
static void torn(void (*tear)(struct simfs_dsb *d), const char *what)
{
	for (int slot = 0; slot < 2; slot++) {
		char notes[1024] = "", want[64];
		struct simfs_fsck_report r = { .msg = add_note, .arg = notes };
		u64 other;

		restore();
		other = simfs_le64_to_cpu(slot_of(!slot)->s_generation);
		tear(slot_of(slot));
		ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
		ck_assert_msg(!r.errors, "%s in slot %d: refused", what, slot);
		ck_assert_uint_eq(r.generation, other);
		snprintf(want, sizeof(want), "superblock slot %d is not valid",
			 slot);
		ck_assert_msg(strstr(notes, want), "%s: %s", what, notes);
		clean_and_mounts(what);
	}
}

static void bad_checksum(struct simfs_dsb *d)
{
	d->s_crc ^= simfs_cpu_to_le32(1);
}

static void short_write(struct simfs_dsb *d)
{
	/* the first half landed, the rest is what was there: zeroes */
	memset((u8 *)d + SIMFS_SB_SIZE / 2, 0, SIMFS_SB_SIZE / 2);
}

static void no_magic(struct simfs_dsb *d)
{
	memset(d->s_magic, 0, sizeof(d->s_magic));
}

/* ---- one test per field ------------------------------------------------ */

static void field_magic(void)
{
	torn(no_magic, "no magic");
}

static void field_version(void)
{
	refused(F(s_version), 0);
	refused(F(s_version), 2);
}

static void field_block_size(void)
{
	static const u64 bad[] = { 0, 3, 511, 1024, 2048, 8192, 65536, 131072 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		refused(F(s_block_size), bad[i]);
}

static void field_lbs(void)
{
	static const u64 bad[] = { 0, 3, 256, 8192, 1 << 20 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		refused(F(s_lbs), bad[i]);
	must_agree(F(s_lbs), 4096);
	must_agree(F(s_lbs), 1024);
}

static void field_io_opt(void)
{
	static const u64 bad[] = { 3, 100, 1000, 4097, 0xffffffff };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		refused(F(s_io_opt), bad[i]);
	must_agree(F(s_io_opt), 65536);
	must_agree(F(s_io_opt), 1536);
}

static void field_nr_blocks(void)
{
	u64 nr = peek(0, AT(s_nr_blocks));
	u64 data = peek(0, AT(s_data_start));

	refused(F(s_nr_blocks), 0);
	refused(F(s_nr_blocks), data + SIMFS_MIN_DATA_BLOCKS - 1);
	/* more than the device holds */
	refused(F(s_nr_blocks), nr + 1);
	refused(F(s_nr_blocks), U64_MAX);
	must_agree(F(s_nr_blocks), data + SIMFS_MIN_DATA_BLOCKS);
}

static void field_meta_start(void)
{
	refused(F(s_meta_start), 0);
	refused(F(s_meta_start), 1);
	refused(F(s_meta_start), 3);
}

static void field_meta_blocks(void)
{
	refused(F(s_meta_blocks), 0);
	refused(F(s_meta_blocks), SIMFS_META_AREA_MIN / BS - 1);
	refused(F(s_meta_blocks), SIMFS_META_AREA_MAX / BS + 1);
	/* 2 + 2 * this wraps to a small data start */
	refused(F(s_meta_blocks), (1ULL << 63) + 1);
}

static void field_data_start(void)
{
	u64 data = peek(0, AT(s_data_start));

	refused(F(s_data_start), 0);
	refused(F(s_data_start), data - 1);
	refused(F(s_data_start), data + 1);
}

static void field_generation(void)
{
	u64 gen = peek(newer, AT(s_generation));

	refused(F(s_generation), 0);
	refused(F(s_generation), SIMFS_MAX_GENERATION);
	refused(F(s_generation), U64_MAX);
	/* newer than both, but odd in slot 0 or even in slot 1 */
	for (int slot = 0; slot < 2; slot++) {
		restore();
		poke(slot, AT(s_generation), gen + 1 + (slot == newer));
		fsck_and_mount_refuse("generation in the other slot's parity",
				      "s_generation");
	}
}

static void field_meta_len(void)
{
	u64 area = peek(0, AT(s_meta_blocks)) * BS;

	refused(F(s_meta_len), 0);
	refused(F(s_meta_len), SIMFS_META_HDR_SIZE - 8);
	refused(F(s_meta_len), SIMFS_META_HDR_SIZE + 1);
	refused(F(s_meta_len), area + 8);
	refused(F(s_meta_len), U64_MAX);
}

/*
 * Checked against the copy of the slot in use only: a commit in flight
 * overwrites the older slot's copy while that slot still points at it.
 */
static void field_meta_crc(void)
{
	char what[64];

	restore();
	poke(newer, AT(s_meta_crc), peek(newer, AT(s_meta_crc)) ^ 1);
	fsck_and_mount_refuse("metadata checksum of the newer slot",
			      "fails its checksum");
	restore();
	poke(!newer, AT(s_meta_crc), peek(!newer, AT(s_meta_crc)) ^ 1);
	snprintf(what, sizeof(what), "metadata checksum of slot %d, older",
		 !newer);
	clean_and_mounts(what);
}

static void field_state(void)
{
	struct simfs_fsck_report r = { 0 };

	refused(F(s_state), 0);
	refused(F(s_state), 3);
	refused(F(s_state), 9);
	/* MOUNTED: a mount or a crash, in either slot; noted if newer */
	restore();
	poke(newer, AT(s_state), SIMFS_STATE_MOUNTED);
	ck_assert_int_eq(simfs_fsck(bdev, &r), 0);
	ck_assert_uint_eq(r.errors, 0);
	ck_assert(!r.clean);
	any_value(F(s_state), SIMFS_STATE_MOUNTED);
}

/* covers F-02: generation 1 is mkfs's, and mkfs writes it CLEAN */
START_TEST(test_state_mounted_at_generation_1)
{
	ram_dev(DEV, 512);
	do_mkfs(BS);
	ck_assert_uint_eq(simfs_le64_to_cpu(slot_of(1)->s_generation), 1);
	slot_of(1)->s_state = simfs_cpu_to_le32(SIMFS_STATE_MOUNTED);
	simfs_dsb_seal(slot_of(1));
	fsck_and_mount_refuse("state MOUNTED at generation 1", "s_state");
	put_dev();
}
END_TEST

static void field_features(void)
{
	refused(F(s_features), SIMFS_FEAT_KNOWN | 1U << 1);
	refused(F(s_features), SIMFS_FEAT_KNOWN | 1U << 31);
	/* off, the limit with it: inline files exist */
	restore();
	for (int slot = 0; slot < 2; slot++) {
		slot_of(slot)->s_inline_max = 0;
		poke(slot, AT(s_features), 0);
	}
	fsck_and_mount_refuse("no inline_data, inline files", "s_features");
}

static void field_inline_max(void)
{
	refused(F(s_inline_max), 0);
	refused(F(s_inline_max), 64);
	refused(F(s_inline_max), SIMFS_INLINE_MAX + 1);
	refused(F(s_inline_max), U32_MAX);
}

static void field_mkfs_time(void)
{
	must_agree(F(s_mkfs_time), 0);
	must_agree(F(s_mkfs_time), U64_MAX);
}

static void field_commit_time(void)
{
	any_value(F(s_commit_time), 0);
	any_value(F(s_commit_time), U64_MAX);
}

static void field_uuid(void)
{
	must_agree(F(s_uuid), 0);
	must_agree(F(s_uuid), 0x0123456789abcdefULL);
}

static void field_label(void)
{
	/* "name", then 28 NULs: in range */
	must_agree(F(s_label), 0x656d616e);
	/* a byte after the NUL */
	refused(offsetof(struct simfs_dsb, s_label), 8, "s_label",
		0x7800000000656d61ULL);
	/* 32 bytes, no NUL */
	for (int slot = 0; slot < 2; slot++) {
		restore();
		memset(slot_of(slot)->s_label, 'x', SIMFS_LABEL_LEN);
		simfs_dsb_seal(slot_of(slot));
		fsck_and_mount_refuse("label without its NUL", "s_label");
	}
}

static void field_reserved(void)
{
	refused(offsetof(struct simfs_dsb, s_reserved), 1, "s_reserved", 1);
	refused(offsetof(struct simfs_dsb, s_reserved) + 99, 1, "s_reserved",
		0x80);
}

static void field_crc(void)
{
	torn(bad_checksum, "bad checksum");
	torn(short_write, "short write");
}

static void (*const fields[])(void) = {
	field_magic,	  field_version,     field_block_size,
	field_lbs,	  field_io_opt,	     field_nr_blocks,
	field_meta_start, field_meta_blocks, field_data_start,
	field_generation, field_meta_len,    field_meta_crc,
	field_state,	  field_features,    field_inline_max,
	field_mkfs_time,  field_commit_time, field_uuid,
	field_label,	  field_reserved,    field_crc,
};

/*
 * covers F-02, F-03: field _i, on an image newest in slot 1, then on one
 * newest in slot 0
 */
START_TEST(test_field_range)
{
	for (int newest = 1; newest >= 0; newest--) {
		make_image(newest);
		fields[_i]();
		restore();
		ck_assert_uint_eq(fsck_errors(), 0);
		drop_image();
	}
}
END_TEST

static Suite *super_suite(void)
{
	Suite *s = suite_create("simfs_super");
	TCase *tc = sim_tcase("super");

	tcase_add_loop_test(tc, test_field_range, 0, ARRAY_SIZE(fields));
	sim_suite_add(s, tc, test_state_mounted_at_generation_1);
	return s;
}

SIM_TEST_MAIN(super_suite)
