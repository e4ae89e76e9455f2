/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the fuzz targets: input decoding, oracle failures and the
 * end-of-input accounting check.
 *
 * Input format (every target): a fixed-size header of choices, then the
 * rest.  Header fields live at fixed offsets and a missing byte reads as
 * 0, so an input keeps its meaning when a later version appends fields:
 * stable corpora, stable regression files.  Each field takes a byte (or a
 * few) modulo the number of choices, which keeps the decoder total: every
 * byte string is a valid input.
 *
 * An oracle failure prints what failed, the target's description of the
 * input (for fuzz_dio the equivalent `iomapsim run ...` command line) and
 * the tail of the trace ring, then calls abort(): libFuzzer records a
 * crash with the input, and the replay driver (CTest) fails.
 */
#ifndef _FUZZ_COMMON_H
#define _FUZZ_COMMON_H

#include <stdio.h>
#include <linux/types.h>

struct fuzz_in {
	const u8 *data;
	size_t size;
	size_t pos;
};

static inline void fuzz_in_init(struct fuzz_in *in, const u8 *data, size_t size)
{
	in->data = data;
	in->size = size;
	in->pos = 0;
}

static inline bool fuzz_more(const struct fuzz_in *in)
{
	return in->pos < in->size;
}

/* Past the end of the input every byte reads as zero. */
static inline u8 fuzz_u8(struct fuzz_in *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline u16 fuzz_u16(struct fuzz_in *in)
{
	u16 lo = fuzz_u8(in);

	return lo | (u16)fuzz_u8(in) << 8;
}

static inline u32 fuzz_u32(struct fuzz_in *in)
{
	u32 lo = fuzz_u16(in);

	return lo | (u32)fuzz_u16(in) << 16;
}

static inline u64 fuzz_u64(struct fuzz_in *in)
{
	u64 lo = fuzz_u32(in);

	return lo | (u64)fuzz_u32(in) << 32;
}

/* A value in [0, n), n > 0. */
static inline unsigned int fuzz_below(struct fuzz_in *in, unsigned int n)
{
	return n > 256 ? fuzz_u16(in) % n : fuzz_u8(in) % n;
}

/*
 * The fixed header: copy the first @len bytes (zero-padded) into @hdr and
 * leave @in at the first byte after it, whatever the input's length.
 */
void fuzz_take_header(struct fuzz_in *in, void *hdr, size_t len);

/*
 * What the failing input was, printed by fuzz_fail(): the target installs
 * a describer for the input being run (NULL: none).
 */
void fuzz_set_describer(void (*fn)(FILE *out, void *arg), void *arg);
/* Name of the input file being replayed (replay driver), or NULL. */
void fuzz_set_input_name(const char *name);

void __attribute__((noreturn, format(printf, 3, 4)))
fuzz_fail(const char *file, int line, const char *fmt, ...);

#define FUZZ_CHECK(cond, fmt, ...)                                       \
	do {                                                             \
		if (__builtin_expect(!(cond), 0))                        \
			fuzz_fail(__FILE__, __LINE__, "%s: " fmt, #cond, \
				  ##__VA_ARGS__);                        \
	} while (0)

/*
 * Accounting around one input.  fuzz_accounting_begin() snapshots every
 * gauge (live allocations, pinned pages, live bios, outstanding work, ...)
 * and clears the warning / violation / deadlock counters;
 * fuzz_accounting_check() fails unless all gauges are back where they
 * were, exactly @warnings WARN_ONs and @violations context violations
 * (-1: any number, for inputs where the kernel's contract makes them
 * expected) and no deadlock happened.  Gauges named in @ignore (NULL-terminated, may be NULL) are
 * not compared: long-lived caches a target flushes on its own schedule.
 */
void fuzz_accounting_begin(void);
void fuzz_accounting_check(long warnings, long violations,
			   const char *const *ignore);

/*
 * One input of a target whose gauges cover the whole input:
 * fuzz_input_begin() zeroes the target's state @arg (@arg_size bytes:
 * nothing is carried from one input to the next, so every input replays
 * alone), reads @data through @in, snapshots the accounting and installs
 * @describe(@arg) for a failure; fuzz_input_end() checks the accounting
 * (as fuzz_accounting_check()) and drops the describer.
 */
void fuzz_input_begin(struct fuzz_in *in, const u8 *data, size_t size,
		      void (*describe)(FILE *out, void *arg), void *arg,
		      size_t arg_size);
void fuzz_input_end(long warnings, long violations, const char *const *ignore);

/*
 * LLVMFuzzerInitialize()'s engine: the deterministic one, seed 1, so that
 * every run of an input (fuzzer, replay, CTest) takes the same schedule.
 */
void fuzz_engine_start(void);

/* The LLVMFuzzerInitialize() of a target that needs only the engine. */
#define FUZZ_ENGINE_INITIALIZE()                          \
	int LLVMFuzzerInitialize(int *argc, char ***argv) \
	{                                                 \
		fuzz_engine_start();                      \
		return 0;                                 \
	}

/* Keep WARN splats for expected warnings off stderr; returns old value. */
bool fuzz_quiet(bool quiet);

#endif /* _FUZZ_COMMON_H */
