// SPDX-License-Identifier: GPL-2.0
/*
 * The --trace file (user/lrutrace/lru_trace.h): every field of every record
 * comes back in both formats, a recording cut short reads up to its last
 * whole frame, and a hostile file is refused before it can ask for much.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lrutrace/lru_trace.h"

static char dir[64], path[96];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_lru_trace.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.trace", dir);
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static struct lru_trace_params params(int version, int nr_cpus)
{
	return (struct lru_trace_params){
		.version = version, .lru_size = 16, .nr_cpus = nr_cpus,
		.hook = "fentry:x", .raw_bits = true,
	};
}

/* Records as varied as the format allows: every field, odd values too. */
static struct lru_event random_event(unsigned int *seed, uint64_t i, int cpus)
{
	struct lru_event e = {
		.ts_ns = 1000000000ULL + i * 997 + rand_r(seed) % 5000,
		.cpu = rand_r(seed) % cpus,
		.dev = rand_r(seed) % 50 ? 0x100001 : rand_r(seed),
		.size = rand_r(seed) % 40 ? 4096 : 1024,
		.lru_size = rand_r(seed) % 100 ? 16 : rand_r(seed) % 65536,
		.outcome = rand_r(seed) % (LRU_RESET + 1),
		.slot = -1,
	};

	e.block = rand_r(seed) % 3 ? 1000 + (uint64_t)(rand_r(seed) % 64) :
		  ((uint64_t)rand_r(seed) << 33) ^ (uint64_t)rand_r(seed);
	if (rand_r(seed) % 1000 == 0)
		e.ts_ns -= 50000;	/* out of order within a CPU */
	if (e.outcome == LRU_HIT || e.outcome == LRU_SNAPSHOT)
		e.slot = rand_r(seed) % 16;
	if (rand_r(seed) % 500 == 0)
		e.slot = (int16_t)rand_r(seed);
	e.flags = rand_r(seed) % 4 ? LRU_EV_FOUND : 0;
	e.flags |= rand_r(seed) % 3 ? LRU_EV_FRONT : 0;
	if (rand_r(seed) % 100 == 0)
		e.flags |= 1 << (rand_r(seed) % 8);
	return e;
}

static void write_read_back(int version, uint64_t n, int cpus)
{
	struct lru_trace_params p = params(version, cpus);
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e, got;
	unsigned int seed = 7;
	char why[512];

	assert_int_equal(lru_trace_create(&w, path, &p), 0);
	for (uint64_t i = 0; i < n; i++) {
		e = random_event(&seed, i, cpus);
		assert_int_equal(lru_trace_append(&w, &e), 0);
		if (i == n / 3)
			assert_int_equal(lru_trace_flush(&w), 0);
	}
	assert_int_equal(lru_trace_finish(&w, 5), 0);

	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), 0);
	assert_int_equal(r.h.version, version);
	assert_int_equal(r.h.records, n);
	assert_int_equal(r.h.lost, 5);
	assert_int_equal(r.h.lru_size, 16);
	assert_int_equal(r.h.nr_cpus, cpus);
	assert_true(r.h.flags & LRU_TRACE_COMPLETE);
	assert_true(r.h.flags & LRU_TRACE_RAW_BITS);
	assert_string_equal(r.h.hook, "fentry:x");
	seed = 7;
	for (uint64_t i = 0; i < n; i++) {
		e = random_event(&seed, i, cpus);
		assert_int_equal(lru_trace_next(&r, &got, why, sizeof(why)), 1);
		assert_memory_equal(&got, &e, sizeof(e));
	}
	assert_int_equal(lru_trace_next(&r, &got, why, sizeof(why)), 0);
	assert_false(r.truncated);
	lru_trace_close(&r);
}

static void every_field_comes_back_in_version_2(void **state)
{
	(void)state;
	/* more than two frames, a flushed one in between, many CPUs */
	write_read_back(2, 2 * LRU_TRACE_FRAME_RECORDS + 1234, 5);
	write_read_back(2, 1, 1);
	write_read_back(2, 3000, LRU_TRACE_MAX_CPUS);
}

static void every_field_comes_back_in_version_1(void **state)
{
	(void)state;
	write_read_back(1, 10000, 3);
}

/* Lookups of a metadata workload: a few bytes each, not 40. */
static void lookups_take_a_few_bytes(void **state)
{
	struct lru_trace_params p = params(2, 2);
	struct lru_trace_writer w;
	unsigned int seed = 3;
	struct stat st;
	enum { N = 200000 };

	(void)state;
	assert_int_equal(lru_trace_create(&w, path, &p), 0);
	for (int i = 0; i < N; i++) {
		int r = rand_r(&seed) % 100;
		struct lru_event e = {
			.ts_ns = 5000000ULL * 1000 + i * 2100ULL +
				 rand_r(&seed) % 512,
			.cpu = rand_r(&seed) % 2, .dev = 0x100000, .size = 4096,
			.lru_size = 16,
			.block = r < 80 ? 100 + rand_r(&seed) % 8 :
				 r < 95 ? 6000 + rand_r(&seed) % 400 : 9000 + i,
			.outcome = r < 80 ? LRU_HIT : LRU_MISS_INSTALLED,
			.slot = r < 80 ? rand_r(&seed) % 8 : -1,
			.flags = LRU_EV_FOUND | LRU_EV_FRONT,
		};

		assert_int_equal(lru_trace_append(&w, &e), 0);
	}
	assert_int_equal(lru_trace_finish(&w, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	print_message("%.2f bytes a lookup\n", (double)st.st_size / N);
	assert_true(st.st_size < 8 * N);
}

static void snapshot_message_becomes_one_record_per_slot(void **state)
{
	struct lru_snapshot_msg m = {
		.head = { .outcome = LRU_SNAPSHOT, .slot = 3, .lru_size = 16,
			  .cpu = 1, .flags = LRU_EV_GAP },
	};
	struct lru_trace_params p = params(2, 4);
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e;
	char why[512];

	(void)state;
	for (int i = 0; i < 3; i++)
		m.keys[i] = (struct lru_key){ .block = 10 + i, .dev = 7, .size = 1024 };
	assert_int_equal(lru_trace_create(&w, path, &p), 0);
	assert_int_equal(lru_trace_append_msg(&w, &m, sizeof(m)), 3);
	m.head.slot = 0;		/* an empty LRU */
	assert_int_equal(lru_trace_append_msg(&w, &m, sizeof(m)), 1);
	e = (struct lru_event){ .outcome = LRU_HIT, .slot = 0, .cpu = 1 };
	assert_int_equal(lru_trace_append_msg(&w, &e, sizeof(e)), 1);
	assert_int_equal(lru_trace_append_msg(&w, &e, 3), -EINVAL);
	e.cpu = 4;			/* beyond nr_cpus */
	assert_int_equal(lru_trace_append_msg(&w, &e, sizeof(e)), -EINVAL);
	assert_int_equal(lru_trace_finish(&w, 0), 0);

	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), 0);
	assert_int_equal(r.h.records, 5);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
		assert_int_equal(e.outcome, LRU_SNAPSHOT);
		assert_int_equal(e.slot, i);
		assert_int_equal(e.block, 10 + i);
		assert_int_equal(e.size, 1024);
		/* The gap belongs to the first record of the run only. */
		assert_int_equal(e.flags, i ? 0 : LRU_EV_GAP);
	}
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
	assert_int_equal(e.slot, -1);
	assert_int_equal(lru_trace_next(&r, &e, why, sizeof(why)), 1);
	assert_int_equal(e.outcome, LRU_HIT);
	lru_trace_close(&r);
}

/* Frames of 1000 records, as a recorder flushing each second writes. */
static off_t write_frames(int frames, off_t *ends)
{
	struct lru_trace_params p = params(2, 2);
	struct lru_trace_writer w;
	unsigned int seed = 1;
	struct lru_event e;

	assert_int_equal(lru_trace_create(&w, path, &p), 0);
	for (int f = 0; f < frames; f++) {
		for (int i = 0; i < 1000; i++) {
			e = random_event(&seed, i, 2);
			assert_int_equal(lru_trace_append(&w, &e), 0);
		}
		assert_int_equal(lru_trace_flush(&w), 0);
		ends[f] = w.bytes;
	}
	/* killed: no final header */
	lru_trace_abandon(&w);
	return ends[frames - 1];
}

static int read_all(uint64_t *records, char *why, size_t len,
		    struct lru_trace_reader *r)
{
	struct lru_event e;
	int n;

	if (lru_trace_open(r, path, why, len))
		return -1;
	while ((n = lru_trace_next(r, &e, why, len)) > 0)
		;
	*records = r->read;
	return n;
}

static void recording_cut_short_reads_to_its_last_frame(void **state)
{
	struct lru_trace_reader r;
	off_t ends[3], cuts[4];
	uint64_t records;
	char why[512];

	(void)state;
	write_frames(3, ends);
	/* inside frame 3's header, inside its data, right after frame 2 */
	cuts[0] = ends[1] + 5;
	cuts[1] = ends[2] - 7;
	cuts[2] = ends[1];
	cuts[3] = ends[2];
	for (int i = 0; i < 4; i++) {
		assert_int_equal(truncate(path, cuts[i]), 0);
		assert_int_equal(read_all(&records, why, sizeof(why), &r), 0);
		assert_false(r.h.flags & LRU_TRACE_COMPLETE);
		if (i < 2) {
			assert_true(r.truncated);
			assert_non_null(strstr(r.note, "ends inside frame 3"));
			assert_non_null(strstr(r.note, "2000 records"));
		} else {
			assert_false(r.truncated);
		}
		assert_int_equal(records, cuts[i] == ends[2] ? 3000 : 2000);
		lru_trace_close(&r);
		write_frames(3, ends);
	}
}

/* Flips one byte at off: the reader says the file is corrupt. */
static void corrupt_at(off_t off, const char *expect)
{
	struct lru_trace_reader r;
	uint64_t records;
	char why[512] = "";
	int fd = open(path, O_RDWR);
	unsigned char b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0x5a;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
	assert_int_equal(read_all(&records, why, sizeof(why), &r), -1);
	if (!strstr(why, expect))
		fail_msg("'%s' does not say '%s'", why, expect);
	lru_trace_close(&r);
}

static void corrupt_frames_are_refused(void **state)
{
	off_t ends[3];
	off_t start2;

	(void)state;
	write_frames(3, ends);
	start2 = ends[0];
	corrupt_at(start2 + 1, "does not start like one");
	write_frames(3, ends);
	corrupt_at(start2 + 7, "impossible sizes");
	write_frames(3, ends);
	corrupt_at(start2 + 4, "do not add up");
	write_frames(3, ends);
	corrupt_at(start2 + 40, "frame 2");	/* checksum or columns */
}

/* A finished header's count must match the file. */
static void header_count_must_match(void **state)
{
	struct lru_trace_params p = params(1, 1);
	struct lru_trace_writer w;
	struct lru_trace_reader r;
	struct lru_event e = { .outcome = LRU_HIT };
	uint64_t records;
	char why[512];

	(void)state;
	assert_int_equal(lru_trace_create(&w, path, &p), 0);
	assert_int_equal(lru_trace_append(&w, &e), 0);
	w.h.records++;
	assert_int_equal(lru_trace_finish(&w, 0), 0);
	assert_int_equal(read_all(&records, why, sizeof(why), &r), -1);
	assert_non_null(strstr(why, "header says 2"));
	lru_trace_close(&r);
}

static void write_raw(const void *a, size_t alen, const void *b, size_t blen)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(a, 1, alen, f), alen);
	if (blen)
		assert_int_equal(fwrite(b, 1, blen, f), blen);
	fclose(f);
}

static struct lru_trace_header header(int version, unsigned int nr_cpus)
{
	struct lru_trace_header h = {
		.version = version, .header_size = sizeof(h),
		.record_size = sizeof(struct lru_event), .lru_size = 16,
		.nr_cpus = nr_cpus, .kernel = "6.1.0-57-amd64", .hook = "x",
	};

	memcpy(h.magic, LRU_TRACE_MAGIC, sizeof(h.magic));
	return h;
}

static void refused(const struct lru_trace_header *h, const void *rec,
		    size_t len, const char *expect)
{
	struct lru_trace_reader r;
	uint64_t records;
	char why[512] = "";

	write_raw(h, sizeof(*h), rec, len);
	assert_int_equal(read_all(&records, why, sizeof(why), &r), -1);
	if (!strstr(why, expect))
		fail_msg("'%s' does not say '%s'", why, expect);
	lru_trace_close(&r);
}

/*
 * Issue 15: a 224-byte trace (header and one record for CPU 65535) made
 * the replay allocate 400 MB. The header's CPU count is the limit.
 */
static void hostile_headers_and_records_are_refused(void **state)
{
	struct lru_trace_header h = header(1, 4);
	struct lru_event e = { .cpu = 65535, .outcome = LRU_HIT };

	(void)state;
	assert_int_equal(sizeof(h) + sizeof(e), 224);
	refused(&h, &e, sizeof(e), "CPU 65535, beyond the 4 CPUs");
	h = header(1, 65536);
	refused(&h, &e, sizeof(e), "bad CPU count 65536");
	h = header(1, 0);
	refused(&h, NULL, 0, "bad CPU count 0");
	h = header(2, 4);
	memset(h.kernel, 'A', sizeof(h.kernel));
	refused(&h, NULL, 0, "not a terminated printable string");
	h = header(2, 4);
	h.hook[0] = '\033';
	refused(&h, NULL, 0, "not a terminated printable string");
	h = header(2, 4);
	h.flags = 0x80;
	refused(&h, NULL, 0, "unknown header flags");
	h = header(2, 4);
	h.lru_size = 65;
	refused(&h, NULL, 0, "bad LRU size 65");
	h = header(3, 4);
	refused(&h, NULL, 0, "version 3");
	h = header(1, 4);
	e = (struct lru_event){ .outcome = 7 };
	refused(&h, &e, sizeof(e), "unknown outcome 7");
	h = header(2, 4);
	refused(&h, (const char [16]){ "BHF2\xff\xff\xff\xff" }, 16,
		"impossible sizes");
}

static void short_or_foreign_files_are_refused(void **state)
{
	struct lru_trace_reader r;
	char why[512];

	(void)state;
	write_raw("BHSCLRU\n", 8, NULL, 0);
	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "shorter than a header"));
	write_raw("this is not a trace, just some text long enough for a header......"
		  "..................................................................."
		  ".........................................................", 190,
		  NULL, 0);
	assert_int_equal(lru_trace_open(&r, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a bhscope lru --trace file"));
	assert_int_equal(lru_trace_open(&r, "/nonexistent/x", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot open"));
}

/* A FIFO would block the reader forever; a device is not a trace. */
static void only_regular_files_are_read(void **state)
{
	struct lru_trace_reader r;
	char fifo[128], why[512];

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(lru_trace_open(&r, fifo, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(lru_trace_open(&r, "/dev/null", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(lru_trace_open(&r, dir, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
}

/* The writer never follows a symlink nor replaces a device or FIFO. */
static void writer_refuses_what_is_not_a_file(void **state)
{
	struct lru_trace_params p = params(2, 1);
	struct lru_trace_writer w;
	char link[128], fifo[128];

	(void)state;
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(lru_trace_create(&w, link, &p), -ELOOP);
	assert_int_equal(access(path, F_OK), -1);	/* nothing made */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_true(lru_trace_create(&w, fifo, &p) < 0);
	assert_int_equal(lru_trace_create(&w, "/dev/null", &p), -ENOTSUP);
	assert_non_null(strstr(lru_trace_create_strerror(-ELOOP), "symlink"));
	p.nr_cpus = LRU_TRACE_MAX_CPUS + 1;
	assert_int_equal(lru_trace_create(&w, path, &p), -EINVAL);
}

/* The reader takes any stream: a fuzzer's buffer, standard input. */
static void reader_reads_a_stream(void **state)
{
	struct lru_trace_header h = header(1, 2);
	struct lru_event e[2] = { { .cpu = 1, .block = 5 }, { .block = 6 } };
	char buf[sizeof(h) + sizeof(e)], why[512];
	struct lru_trace_reader r;
	struct lru_event got;
	FILE *f;

	(void)state;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), e, sizeof(e));
	f = fmemopen(buf, sizeof(buf), "r");
	assert_non_null(f);
	assert_int_equal(lru_trace_open_file(&r, f, true, "buffer", why, sizeof(why)), 0);
	assert_int_equal(lru_trace_next(&r, &got, why, sizeof(why)), 1);
	assert_int_equal(got.block, 5);
	assert_int_equal(lru_trace_next(&r, &got, why, sizeof(why)), 1);
	assert_int_equal(lru_trace_next(&r, &got, why, sizeof(why)), 0);
	lru_trace_close(&r);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, remove_dir)
	const struct CMUnitTest tests[] = {
		T(every_field_comes_back_in_version_2),
		T(every_field_comes_back_in_version_1),
		T(lookups_take_a_few_bytes),
		T(snapshot_message_becomes_one_record_per_slot),
		T(recording_cut_short_reads_to_its_last_frame),
		T(corrupt_frames_are_refused),
		T(header_count_must_match),
		T(hostile_headers_and_records_are_refused),
		T(short_or_foreign_files_are_refused),
		T(only_regular_files_are_read),
		T(writer_refuses_what_is_not_a_file),
		T(reader_reads_a_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
