// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_fuzz - kernel.sched_sync_wakeup_policy under random writes.
 *
 * Two threads write at the same time, each through its own fd or a fresh
 * open: random bytes of 0 to 8192 bytes at random offsets, near misses of
 * the names (prefixes, upper case, a NUL inside, leading blanks, two
 * newlines, padding, ...) and, one write in four, a valid name at offset 0,
 * so that writes are accepted and the value moves under the other thread.
 * Each thread classifies every input before writing it, from the rule
 * alone: accepted if and only if the bytes are exactly one policy name with
 * at most one trailing newline, written at offset 0. Then:
 *
 *  - an accepted write returns its full length and a refused one fails with
 *    EINVAL; anything else (a short write, another errno) fails the test;
 *  - every verdict is the predicted one, so the count of accepted writes is
 *    the predicted count;
 *  - after every write the file reads "name\n" for one of the names, and a
 *    read at a random offset and size gives that piece of one "name\n";
 *  - at the end the value is the last name one of the threads had accepted.
 *
 * Then one thread alone (one_writer), where the value is known at every
 * step: after each write it reads exactly the name it wrote if the write
 * was accepted, and exactly the name before if it was refused.
 *
 * SW_FUZZ_SEED=<n> repeats a run's inputs: each thread draws them from its
 * own generator seeded from n, only the interleaving of the two threads is
 * the scheduler's. SW_FUZZ_WRITES=<n> sets the writes of both threads
 * together (10000 by default), split evenly between them, and of the one
 * writer (half as many).
 *
 * The test saves and restores the feature bit and the policy. On a kernel
 * without the interface, or not as root, it is skipped.
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>

#define FUZZ_THREADS		2
/* Writes of both threads together, unless SW_FUZZ_WRITES says otherwise. */
#define FUZZ_DEFAULT_WRITES	10000
/* Seconds: a debug kernel under QEMU TCG is slow, 10000 writes take a while. */
#define FUZZ_TIMEOUT		300
/* Failure messages kept per thread; the rest are only counted. */
#define FUZZ_MAX_REPORTS	8
#define FUZZ_MSG_LEN		320
/* fuzz_write() could not open the file: no write() to judge. */
#define FUZZ_OPEN_FAILED	(-2)

/*
 * Lengths go up to two pages of x86 (FUZZ_MAX_LEN), past PAGE_SIZE on
 * purpose, and nothing on the way caps or splits such a write in 6.12:
 * vfs_write() clamps only at MAX_RW_COUNT, and proc_sys_call_handler()
 * (fs/proc/proc_sysctl.c) fails only counts of KMALLOC_MAX_SIZE (4 MiB on
 * x86-64) and more, with ENOMEM; below that it copies all count bytes into
 * a kvzalloc()ed buffer of count + 1 and hands them all to the handler. So
 * an 8192-byte write reaches sched_sync_wakeup_policy_handler() whole and,
 * naming no policy, fails with EINVAL: never a short write, never ENOMEM.
 *
 * A write of 0 bytes is no exception either: neither vfs_write() nor
 * proc_sys_call_handler() returns early on a count of 0, so the handler
 * gets an empty string, which names no policy: EINVAL, as the "empty" case
 * of sync_wakeup_iface expects.
 *
 * Offsets other than 0 fail with EINVAL on three paths, all of which the
 * inputs take: a negative one in ksys_pwrite64(), one with offset + count
 * past the largest loff_t in rw_verify_area(), any other in the handler.
 *
 * This assumes no cgroup BPF sysctl program is attached: one could rewrite
 * the buffer, the count or the offset before the handler sees them.
 */
#define FUZZ_MAX_LEN		8192
#define FUZZ_PAGE		4096
#define FUZZ_OFF_MAX		((off_t)((1ULL << (sizeof(off_t) * 8 - 1)) - 1))

/* Bytes the policy names are made of, so that random input comes close. */
#define FUZZ_NAME_BYTES		"acefhiklnoprstwy-\n"

struct fuzz_input {
	char buf[FUZZ_MAX_LEN + 1];	/* one spare byte for inserting a NUL */
	size_t len;
	off_t off;
	bool fresh_open;		/* open() and write(), not pwrite() on the thread's fd */
	const char *kind;		/* what made it, for the report */
};

struct fuzz_thread {
	int id;
	pthread_t tid;
	const int *go;			/* 1: start, -1: give up; set by the test */
	unsigned long long rng;
	unsigned long nr_writes;	/* to do */
	int fd;				/* O_RDWR: pwrite() and pread() */

	/* What it did. */
	unsigned long writes, accepted, rejected, predicted, reads;
	/* What went wrong: verdict not the predicted one, other results, reads. */
	unsigned long mismatches, errors, bad_reads;
	int last_accepted;		/* policy of its last accepted write, or -1 */
	int value;			/* alone: the policy the file must read, or -1 */
	bool last_unknown;		/* it had a write accepted that names no policy */
	char msg[FUZZ_MAX_REPORTS][FUZZ_MSG_LEN];
	int nr_msgs;

	struct fuzz_input in;
};

/* ---- a generator per thread ------------------------------------------- */

/* splitmix64: turns the seed and a thread number into a nonzero state. */
static unsigned long long fuzz_seed_state(unsigned long long seed, int id)
{
	unsigned long long x = seed + (id + 1) * 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;
}

/* xorshift64*: the same sequence for the same seed, on any machine. */
static unsigned long long rnd(unsigned long long *s)
{
	unsigned long long x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* 0 <= result < @n, @n > 0; the modulo bias does not matter here. */
static unsigned long rnd_below(unsigned long long *s, unsigned long n)
{
	return rnd(s) % n;
}

static bool rnd_one_in(unsigned long long *s, unsigned long n)
{
	return rnd_below(s, n) == 0;
}

/* ---- the inputs -------------------------------------------------------- */

static void in_put(struct fuzz_input *in, const void *p, size_t n)
{
	if (n > FUZZ_MAX_LEN - in->len)
		n = FUZZ_MAX_LEN - in->len;
	memcpy(in->buf + in->len, p, n);
	in->len += n;
}

static void in_putc(struct fuzz_input *in, char c)
{
	in_put(in, &c, 1);
}

static void in_puts(struct fuzz_input *in, const char *s)
{
	in_put(in, s, strlen(s));
}

static const char *random_name(unsigned long long *r)
{
	return sw_policies[rnd_below(r, SW_NR_POLICIES)];
}

static void maybe_newline(unsigned long long *r, struct fuzz_input *in)
{
	if (rnd_one_in(r, 2))
		in_putc(in, '\n');
}

/* A policy name, as it is or as echo writes it. */
static void gen_valid(unsigned long long *r, struct fuzz_input *in)
{
	in->kind = "valid name";
	in_puts(in, random_name(r));
	maybe_newline(r, in);
}

/*
 * Inputs one step away from a name. Some of them happen to be valid (a
 * trailing byte that is a newline, a byte changed to itself): that is for
 * the classification to find, not for the generator to avoid.
 */
static void gen_near_miss(unsigned long long *r, struct fuzz_input *in)
{
	static const char blanks[] = " \t\n\r\v\f";
	/* Not the newline: one trailing newline is allowed. */
	static const char trailing[] = " \t\r\v\f";
	static const char pads[] = { '\n', '\0', ' ', 'x' };
	const char *name = random_name(r);
	size_t len = strlen(name), i, target;
	char c;

	switch (rnd_below(r, 12)) {
	case 0:
		in->kind = "name and trailing bytes";
		in_puts(in, name);
		for (i = 1 + rnd_below(r, 4); i; i--)
			in_putc(in, rnd(r));
		break;
	case 1:
		in->kind = "prefix";
		in_put(in, name, rnd_below(r, len));
		maybe_newline(r, in);
		break;
	case 2:
		in->kind = "upper case";
		in_puts(in, name);
		if (rnd_one_in(r, 2)) {
			for (i = 0; i < len; i++)
				in->buf[i] = toupper((unsigned char)in->buf[i]);
		} else {
			do
				i = rnd_below(r, len);
			while (!isalpha((unsigned char)in->buf[i]));
			in->buf[i] = toupper((unsigned char)in->buf[i]);
		}
		maybe_newline(r, in);
		break;
	case 3:
		in->kind = "NUL inside";
		in_puts(in, name);
		maybe_newline(r, in);
		i = rnd_below(r, in->len + 1);
		memmove(in->buf + i + 1, in->buf + i, in->len - i);
		in->buf[i] = '\0';
		in->len++;
		break;
	case 4:
		in->kind = "leading blank";
		in_putc(in, blanks[rnd_below(r, sizeof(blanks) - 1)]);
		in_puts(in, name);
		maybe_newline(r, in);
		break;
	case 5:
		in->kind = "trailing blank";
		in_puts(in, name);
		in_putc(in, trailing[rnd_below(r, sizeof(trailing) - 1)]);
		maybe_newline(r, in);
		break;
	case 6:
		in->kind = "two newlines";
		in_puts(in, name);
		in_puts(in, rnd_one_in(r, 4) ? "\r\n" : "\n\n");
		break;
	case 7:
		in->kind = "name at an offset";
		in_puts(in, name);
		maybe_newline(r, in);
		in->off = 1 + rnd_below(r, len + 2);
		break;
	case 8:
		in->kind = "padded name";
		in_puts(in, name);
		maybe_newline(r, in);
		c = pads[rnd_below(r, sizeof(pads))];
		target = len + 2 + rnd_below(r, FUZZ_MAX_LEN - len - 1);
		while (in->len < target)
			in_putc(in, c);
		break;
	case 9:
		in->kind = "two names";
		in_puts(in, name);
		i = rnd_below(r, 4);
		if (i < 3)
			in_putc(in, "\n ,"[i]);
		in_puts(in, random_name(r));
		maybe_newline(r, in);
		break;
	case 10:
		in->kind = "one byte changed";
		in_puts(in, name);
		in->buf[rnd_below(r, len)] = rnd(r);
		maybe_newline(r, in);
		break;
	default:
		in->kind = "underscores";
		in_puts(in, name);
		for (i = 0; i < len; i++)
			if (in->buf[i] == '-')
				in->buf[i] = '_';
		maybe_newline(r, in);
		break;
	}
}

/* 0 to FUZZ_MAX_LEN, with more than their share of 0, short and page-sized. */
static size_t random_len(unsigned long long *r)
{
	switch (rnd_below(r, 8)) {
	case 0:
		return 0;
	case 1:
	case 2:
		return 1 + rnd_below(r, 32);
	case 3:
		return FUZZ_PAGE - 8 + rnd_below(r, 17);
	case 4:
		return FUZZ_MAX_LEN - rnd_below(r, 9);
	default:
		return rnd_below(r, FUZZ_MAX_LEN + 1);
	}
}

/* Half of them 0; the others small, a page, anywhere, or past the end of loff_t. */
static off_t random_off(unsigned long long *r)
{
	switch (rnd_below(r, 16)) {
	case 8:
	case 9:
	case 10:
	case 11:
		return 1 + rnd_below(r, 16);
	case 12:
		return FUZZ_PAGE;
	case 13:
		return rnd_below(r, 1UL << 20);
	case 14:
		return FUZZ_OFF_MAX - (off_t)rnd_below(r, 16);
	case 15:
		return -1 - (off_t)rnd_below(r, 16);
	default:
		return 0;
	}
}

static void gen_random(unsigned long long *r, struct fuzz_input *in)
{
	size_t i, len = random_len(r);

	switch (rnd_below(r, 3)) {
	case 0:
		in->kind = "random bytes";
		for (i = 0; i < len; i++)
			in->buf[i] = rnd(r);
		break;
	case 1:
		in->kind = "random text";
		for (i = 0; i < len; i++)
			in->buf[i] = rnd_one_in(r, 16) ? '\n' : ' ' + rnd_below(r, 95);
		break;
	default:
		in->kind = "random name bytes";
		for (i = 0; i < len; i++)
			in->buf[i] = FUZZ_NAME_BYTES[rnd_below(r, sizeof(FUZZ_NAME_BYTES) - 1)];
		break;
	}
	in->len = len;
	in->off = random_off(r);
}

/* One write in four a valid name at offset 0, three in eight a near miss. */
static void fuzz_generate(unsigned long long *r, struct fuzz_input *in)
{
	unsigned long pick = rnd_below(r, 8);

	in->len = 0;
	in->off = 0;
	if (pick < 2)
		gen_valid(r, in);
	else if (pick < 5)
		gen_near_miss(r, in);
	else
		gen_random(r, in);
	in->fresh_open = !in->off && rnd_one_in(r, 2);
}

/*
 * The rule of sched_sync_wakeup_policy_handler(), written down from its
 * description rather than from its code: the policy that @len bytes at
 * @off set, or -1 if the write must fail with EINVAL.
 */
static int expected_policy(const char *buf, size_t len, off_t off)
{
	size_t i, n;

	if (off)
		return -1;
	for (i = 0; i < SW_NR_POLICIES; i++) {
		n = strlen(sw_policies[i]);
		if ((len == n || (len == n + 1 && buf[n] == '\n')) &&
		    !memcmp(buf, sw_policies[i], n))
			return i;
	}
	return -1;
}

/* The index of policy @name, or -1. */
static int policy_index(const char *name)
{
	size_t i;

	for (i = 0; i < SW_NR_POLICIES; i++)
		if (!strcmp(name, sw_policies[i]))
			return i;
	return -1;
}

/* The policy @buf holds as exactly "name\n" in @len bytes, or -1. */
static int policy_of(const char *buf, ssize_t len)
{
	size_t i, n;

	for (i = 0; i < SW_NR_POLICIES; i++) {
		n = strlen(sw_policies[i]);
		if ((size_t)len == n + 1 && buf[n] == '\n' && !memcmp(buf, sw_policies[i], n))
			return i;
	}
	return -1;
}

/*
 * Could a read of @size bytes at @off return these @n bytes? The read side
 * is proc_dostring(): ("name\n")[off, off + size), nothing from the end on.
 */
static bool piece_of_a_name(const char *buf, ssize_t n, off_t off, size_t size)
{
	char full[64];
	size_t i, len, want;

	for (i = 0; i < SW_NR_POLICIES; i++) {
		len = snprintf(full, sizeof(full), "%s\n", sw_policies[i]);
		if (off >= (off_t)len) {
			if (n == 0)
				return true;
			continue;
		}
		want = len - off < size ? len - off : size;
		if ((size_t)n == want && !memcmp(buf, full + off, want))
			return true;
	}
	return false;
}

/* ---- a thread ---------------------------------------------------------- */

/* Up to 40 bytes of @buf as in a C string literal, "..." if there are more. */
static const char *escape(const char *buf, size_t len, char *out, size_t size)
{
	size_t i, off = 0;

	for (i = 0; i < len && i < 40 && off + 8 < size; i++) {
		unsigned char c = buf[i];

		if (c == '\n')
			off += snprintf(out + off, size - off, "\\n");
		else if (c == '"' || c == '\\')
			off += snprintf(out + off, size - off, "\\%c", c);
		else if (isprint(c))
			off += snprintf(out + off, size - off, "%c", c);
		else
			off += snprintf(out + off, size - off, "\\x%02x", c);
	}
	if (i < len && off < size)
		snprintf(out + off, size - off, "...");
	return out;
}

static void __printf(3, 4)
fuzz_report(struct fuzz_thread *t, unsigned long *counter, const char *fmt, ...)
{
	struct fuzz_input *in = &t->in;
	char what[256], bytes[200];
	va_list ap;

	(*counter)++;
	if (t->nr_msgs >= FUZZ_MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(t->msg[t->nr_msgs++], FUZZ_MSG_LEN,
		 "thread %d, write %lu (%s, %zu bytes at offset %lld, %s): \"%s\": %s",
		 t->id, t->writes, in->kind, in->len, (long long)in->off,
		 in->fresh_open ? "open+write" : "pwrite",
		 escape(in->buf, in->len, bytes, sizeof(bytes)), what);
}

/* Write the input; returns what write() or pwrite() did, errno in @err. */
static ssize_t fuzz_write(struct fuzz_thread *t, int *err)
{
	struct fuzz_input *in = &t->in;
	ssize_t ret;
	int fd = t->fd;

	if (in->fresh_open) {
		fd = open(SW_POLICY_PATH, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			*err = errno;
			fuzz_report(t, &t->errors, "open: %s", strerror(*err));
			return FUZZ_OPEN_FAILED;
		}
	}
	errno = 0;
	if (in->fresh_open)
		ret = write(fd, in->buf, in->len);
	else
		ret = pwrite(fd, in->buf, in->len, in->off);
	*err = errno;
	if (in->fresh_open)
		close(fd);
	return ret;
}

/* The write's verdict against the prediction @want. */
static void fuzz_check_write(struct fuzz_thread *t, int want, ssize_t ret, int err)
{
	struct fuzz_input *in = &t->in;

	if (ret >= 0 && (size_t)ret == in->len) {
		t->accepted++;
		if (want < 0) {
			t->last_unknown = true;
			fuzz_report(t, &t->mismatches, "accepted, want EINVAL");
		} else {
			t->last_accepted = want;
			if (t->value >= 0)
				t->value = want;
		}
	} else if (ret == -1 && err == EINVAL) {
		t->rejected++;
		if (want >= 0)
			fuzz_report(t, &t->mismatches, "EINVAL, want it accepted as %s",
				    sw_policies[want]);
	} else if (ret >= 0) {
		fuzz_report(t, &t->errors, "short write: %zd of %zu bytes", ret, in->len);
	} else if (ret == -1) {
		fuzz_report(t, &t->errors, "errno %d (%s), want %s", err, strerror(err),
			    want < 0 ? "EINVAL" : "success");
	}
}

/*
 * The whole value, "name\n", through a fresh open or the thread's fd. One
 * read() at offset 0, not sw_read_file(): the handler reads the policy once
 * per call, but a second read() at the offset the first one left would show
 * the tail of whatever the other thread wrote in between.
 */
static void fuzz_read_back(struct fuzz_thread *t)
{
	char buf[128], bytes[200];
	ssize_t n;
	int fd;

	if (rnd_one_in(&t->rng, 2)) {
		fd = open(SW_POLICY_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fuzz_report(t, &t->bad_reads, "open to read back: %s", strerror(errno));
			return;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0)
			n = -errno;
		close(fd);
	} else {
		n = pread(t->fd, buf, sizeof(buf), 0);
		if (n < 0)
			n = -errno;
	}
	t->reads++;
	if (n < 0) {
		fuzz_report(t, &t->bad_reads, "read back: %s", strerror(-n));
		return;
	}
	if (policy_of(buf, n) < 0)
		fuzz_report(t, &t->bad_reads, "read back \"%s\" (%zd bytes), not \"name\\n\"",
			    escape(buf, n, bytes, sizeof(bytes)), n);
	else if (t->value >= 0 && policy_of(buf, n) != t->value)
		fuzz_report(t, &t->bad_reads, "read back %s after a \"%s\" write (%s), not %s",
			    sw_policies[policy_of(buf, n)],
			    t->in.kind, escape(t->in.buf, t->in.len, bytes, sizeof(bytes)),
			    sw_policies[t->value]);
}

/* A piece of the value: a random offset and size. */
static void fuzz_read_piece(struct fuzz_thread *t)
{
	off_t off = rnd_below(&t->rng, 24);
	size_t size = rnd_below(&t->rng, 65);
	char buf[64], bytes[200];
	ssize_t n;

	n = pread(t->fd, buf, size, off);
	t->reads++;
	if (n < 0)
		fuzz_report(t, &t->bad_reads, "pread of %zu at %lld: %s", size,
			    (long long)off, strerror(errno));
	else if (!piece_of_a_name(buf, n, off, size))
		fuzz_report(t, &t->bad_reads,
			    "pread of %zu at %lld: \"%s\" (%zd bytes), no piece of a name",
			    size, (long long)off, escape(buf, n, bytes, sizeof(bytes)), n);
}

static void *fuzz_thread(void *arg)
{
	struct fuzz_thread *t = arg;
	ssize_t ret;
	int go, want, err;

	while (!(go = __atomic_load_n(t->go, __ATOMIC_ACQUIRE)))
		sched_yield();
	if (go < 0)
		return NULL;

	t->fd = open(SW_POLICY_PATH, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		fuzz_report(t, &t->errors, "open %s: %s", SW_POLICY_PATH, strerror(errno));
		return NULL;
	}
	while (t->writes < t->nr_writes) {
		fuzz_generate(&t->rng, &t->in);
		want = expected_policy(t->in.buf, t->in.len, t->in.off);
		t->predicted += want >= 0;
		ret = fuzz_write(t, &err);
		if (ret != FUZZ_OPEN_FAILED)
			fuzz_check_write(t, want, ret, err);
		fuzz_read_back(t);
		if (rnd_one_in(&t->rng, 4))
			fuzz_read_piece(t);
		t->writes++;
	}
	close(t->fd);
	return NULL;
}

/* ---- the test ---------------------------------------------------------- */

/*
 * Skip on a kernel without the interface or when not root, fail on a
 * half-present one. Returns false if the test was skipped.
 */
static bool require_iface(struct __test_metadata *_metadata)
{
	char why[512];
	enum sw_iface st;

	if (geteuid() != 0)
		SKIP(return false, "must run as root");
	st = sw_iface_check(false, why, sizeof(why));
	if (st == SW_IFACE_ABSENT)
		SKIP(return false, "%s", why);
	ASSERT_EQ(SW_IFACE_OK, (int)st) TH_LOG("%s", why);
	return true;
}

static void fuzz_summary(const struct fuzz_thread *t)
{
	ksft_print_msg("thread %d: %lu writes, %lu accepted (%lu predicted), %lu rejected\n",
		       t->id, t->writes, t->accepted, t->predicted, t->rejected);
	ksft_print_msg("thread %d: %lu reads; %lu mismatches, %lu other results, %lu bad reads\n",
		       t->id, t->reads, t->mismatches, t->errors, t->bad_reads);
}

/* @name from the environment, if set: 0 unset, 1 set, -EINVAL not a number. */
static int env_number(const char *name, unsigned long long *val)
{
	const char *s = getenv(name);
	char *end;

	if (!s)
		return 0;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-')
		return -EINVAL;
	return 1;
}

FIXTURE(fuzz) {
	struct sw_saved saved;
};

FIXTURE_SETUP(fuzz)
{
	if (!require_iface(_metadata))
		return;
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy) TH_LOG("cannot read %s", SW_POLICY_PATH);
}

FIXTURE_TEARDOWN_PARENT(fuzz)
{
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/*
 * The seed and the number of writes, from the clock and FUZZ_DEFAULT_WRITES
 * or from SW_FUZZ_SEED and SW_FUZZ_WRITES; then the feature on, so that
 * wakeups read the policy while it changes. Returns the policy in force.
 */
static int fuzz_start(struct __test_metadata *_metadata, const struct sw_saved *saved,
		      unsigned long long *seed, unsigned long long *writes, int threads)
{
	struct timespec ts;
	char cur[64];
	int first;

	clock_gettime(CLOCK_REALTIME, &ts);
	*seed = (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	*writes = FUZZ_DEFAULT_WRITES;
	ASSERT_LE(0, env_number("SW_FUZZ_SEED", seed))
		TH_LOG("SW_FUZZ_SEED=\"%s\" is not a number", getenv("SW_FUZZ_SEED"));
	ASSERT_LE(0, env_number("SW_FUZZ_WRITES", writes))
		TH_LOG("SW_FUZZ_WRITES=\"%s\" is not a number", getenv("SW_FUZZ_WRITES"));
	ASSERT_LT(0ULL, *writes) TH_LOG("SW_FUZZ_WRITES=0: nothing to do");
	if (threads == 1)
		*writes = (*writes + 1) / 2;
	ksft_print_msg("seed %llu, %llu writes by %d thread%s (SW_FUZZ_SEED=%llu repeats them)\n",
		       *seed, *writes, threads, threads > 1 ? "s" : "", *seed);
	fflush(stdout);

	if (saved->have_feature)
		ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	first = policy_index(cur);
	ASSERT_LE(0, first) TH_LOG("policy \"%s\" is no name", cur);
	return first;
}

/* What one thread did wrong, as EXPECTs. */
static void fuzz_expect_thread(struct __test_metadata *_metadata, const struct fuzz_thread *t)
{
	int j;

	for (j = 0; j < t->nr_msgs; j++)
		TH_LOG("%s", t->msg[j]);
	EXPECT_EQ(t->nr_writes, t->writes) TH_LOG("thread %d stopped early", t->id);
	EXPECT_EQ(t->predicted, t->accepted) TH_LOG("thread %d: accepted writes", t->id);
	EXPECT_EQ(0UL, t->mismatches) TH_LOG("thread %d: verdicts not predicted", t->id);
	EXPECT_EQ(0UL, t->errors) TH_LOG("thread %d: neither success nor EINVAL", t->id);
	EXPECT_EQ(0UL, t->bad_reads) TH_LOG("thread %d: reads not of the name due", t->id);
	EXPECT_EQ(t->writes, t->accepted + t->rejected + t->errors);
}

TEST_F_TIMEOUT(fuzz, two_writers, FUZZ_TIMEOUT)
{
	static struct fuzz_thread t[FUZZ_THREADS];	/* 11 KiB each, not on the stack */
	unsigned long all_writes = 0, all_accepted = 0, all_rejected = 0, all_reads = 0;
	int i, go = 0, started = 0, first, last;
	bool any_accepted = false, last_ok = false;
	unsigned long long seed, writes;
	char cur[64];
	double t0;

	first = fuzz_start(_metadata, &self->saved, &seed, &writes, FUZZ_THREADS);

	for (i = 0; i < FUZZ_THREADS; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].id = i;
		t[i].go = &go;
		t[i].rng = fuzz_seed_state(seed, i);
		t[i].nr_writes = writes / FUZZ_THREADS + (i < (int)(writes % FUZZ_THREADS));
		t[i].fd = -1;
		t[i].last_accepted = -1;
		t[i].value = -1;
	}
	for (i = 0; i < FUZZ_THREADS; i++, started++)
		if (pthread_create(&t[i].tid, NULL, fuzz_thread, &t[i]))
			break;
	__atomic_store_n(&go, started == FUZZ_THREADS ? 1 : -1, __ATOMIC_RELEASE);
	t0 = sw_now_us();
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
	ASSERT_EQ(FUZZ_THREADS, started) TH_LOG("pthread_create: could not start thread %d",
						started);

	for (i = 0; i < FUZZ_THREADS; i++) {
		fuzz_summary(&t[i]);
		all_writes += t[i].writes;
		all_accepted += t[i].accepted;
		all_rejected += t[i].rejected;
		all_reads += t[i].reads;
	}
	ksft_print_msg("all: %lu writes, %lu accepted, %lu rejected, %lu reads in %.1f s\n",
		       all_writes, all_accepted, all_rejected, all_reads,
		       (sw_now_us() - t0) / 1e6);

	for (i = 0; i < FUZZ_THREADS; i++)
		fuzz_expect_thread(_metadata, &t[i]);

	/*
	 * The last accepted write of all is the last accepted write of one of
	 * the threads; with none accepted the value is the one from before.
	 */
	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	last = policy_index(cur);
	for (i = 0; i < FUZZ_THREADS; i++) {
		if (t[i].last_unknown)
			return;		/* already failed, nothing to predict */
		if (t[i].last_accepted < 0)
			continue;
		any_accepted = true;
		last_ok |= t[i].last_accepted == last;
	}
	if (!any_accepted)
		last_ok = first == last;
	EXPECT_TRUE(last_ok) TH_LOG("policy at the end \"%s\", before the writes \"%s\"",
				    cur, sw_policies[first]);
	if (!last_ok)
		for (i = 0; i < FUZZ_THREADS; i++)
			TH_LOG("thread %d: last accepted %s", i, t[i].last_accepted < 0 ?
			       "none" : sw_policies[t[i].last_accepted]);
}

/*
 * One writer: no other thread moves the value, so every read must give
 * exactly the name of the last accepted write, or the one from before if
 * none was: a refused write must leave the value as it was.
 */
TEST_F_TIMEOUT(fuzz, one_writer, FUZZ_TIMEOUT)
{
	static struct fuzz_thread t;
	unsigned long long seed, writes;
	char cur[64];
	int go = 1;

	memset(&t, 0, sizeof(t));
	t.value = fuzz_start(_metadata, &self->saved, &seed, &writes, 1);
	t.go = &go;
	/* A stream of its own, not thread 0's of two_writers. */
	t.rng = fuzz_seed_state(seed, FUZZ_THREADS);
	t.nr_writes = writes;
	t.fd = -1;
	t.last_accepted = -1;
	fuzz_thread(&t);
	fuzz_summary(&t);
	fuzz_expect_thread(_metadata, &t);
	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	EXPECT_EQ(t.value, policy_index(cur))
		TH_LOG("policy at the end \"%s\", not %s", cur, sw_policies[t.value]);
}

TEST_HARNESS_MAIN
