/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SYNC_PAIR_AFFINE selftests, defined in sync_wakeup.c
 * and linked into every test program: the files of the interface,
 * save/restore of the feature bit and the policy, the counters, and the two
 * workloads (a reciprocal pipe ping-pong and a one-way fan-out).
 *
 * Nothing in there calls the harness' ASSERT_*(): the workloads fork, and an
 * assertion in a forked process would unwind into the harness' own code.
 * Functions return 0 or -errno and the tests decide.
 */
#ifndef __SYNC_WAKEUP_H
#define __SYNC_WAKEUP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "../../kselftest.h"

#define SW_FEATURES_PATH	"/sys/kernel/debug/sched/features"
#define SW_STATS_PATH		"/sys/kernel/debug/sched/sync_wakeup_stats"
#define SW_POLICY_PATH		"/proc/sys/kernel/sched_sync_wakeup_policy"
#define SW_AVAILABLE_PATH	"/proc/sys/kernel/sched_sync_wakeup_available_policies"
#define SW_SMT_ACTIVE_PATH	"/sys/devices/system/cpu/smt/active"
/* sysctl_sched_migration_cost: the run within which a promise is kept. */
#define SW_LIMIT_PATH		"/sys/kernel/debug/sched/migration_cost_ns"
/*
 * The limit where a test needs a waker that blocks to keep its promise,
 * however slow the emulated CPU: far above any run between two decisions.
 */
#define SW_LIMIT_RELAXED_NS	100000000L

#define SW_FEATURE		"SYNC_PAIR_AFFINE"
#define SW_NO_FEATURE		"NO_SYNC_PAIR_AFFINE"
#define SW_DEFAULT_POLICY	"reciprocal-only"

/* The user/group an unprivileged child drops to. */
#define SW_NOBODY		65534

/* The accepted policy names, in the kernel's order. */
#define SW_NR_POLICIES		((size_t)6)
extern const char * const sw_policies[SW_NR_POLICIES];

/*
 * Lines of sched/sync_wakeup_stats, in the kernel's order: sync_wakeups,
 * the verdicts, the landings, the contexts, the wakers' promises. Each
 * sync wakeup the policy decides gets exactly one verdict, one landing
 * and one context, and sync_wakeups is the sum of the verdicts, computed
 * when the file is read. promise_pending is printed signed: made less
 * kept, broken and unjudged.
 */
enum sw_stat {
	SW_SYNC_WAKEUPS,
	SW_KEPT,
	SW_DECLINED_SMT,
	SW_DECLINED_NOT_RECIPROCAL,
	SW_DECLINED_WAKER_BUSY,
	SW_DECLINED_CAPACITY,
	SW_DECLINED_NOT_AFFINE,
	SW_DECLINED_WAKE_WIDE,
	SW_HINT_DROPPED,
	SW_HINT_ONLY,
	SW_PROBE,
	SW_LANDED_WAKER_CPU,
	SW_LANDED_SMT_SIBLING,
	SW_LANDED_SAME_LLC,
	SW_LANDED_OTHER_LLC,
	SW_CONTEXT_TASK,
	SW_CONTEXT_SOFTIRQ_BH,
	SW_CONTEXT_SOFTIRQ,
	SW_CONTEXT_HARDIRQ,
	SW_PROMISE_KEPT,
	SW_PROMISE_BROKEN,
	SW_PROMISE_UNJUDGED,
	SW_PROMISE_PENDING,
	SW_NR_STATS
};

#define SW_FIRST_VERDICT	SW_KEPT
#define SW_LAST_VERDICT		SW_PROBE
#define SW_FIRST_LANDING	SW_LANDED_WAKER_CPU
#define SW_LAST_LANDING		SW_LANDED_OTHER_LLC
#define SW_FIRST_CONTEXT	SW_CONTEXT_TASK
#define SW_LAST_CONTEXT		SW_CONTEXT_HARDIRQ
#define SW_STAT_BIT(i)		(1U << (i))

extern const char * const sw_stat_names[SW_NR_STATS];

struct sw_stats {
	unsigned long v[SW_NR_STATS];
};

/* ---- files ---------------------------------------------------------- */

ssize_t sw_read_file(const char *path, char *buf, size_t size);
int sw_write_file(const char *path, const void *buf, size_t len);
int sw_write_str(const char *path, const char *s);
bool sw_exists(const char *path);

/* ---- the feature bit and the policy --------------------------------- */

int sw_feature_get(void);
int sw_feature_set(bool on);
int sw_policy_get(char *buf, size_t size);
int sw_policy_set(const char *name);
bool sw_is_policy(const char *name);

/* ---- counters ------------------------------------------------------- */

int sw_stats_read(struct sw_stats *st);
int sw_stats_since(const struct sw_stats *start, struct sw_stats *st);
int sw_stats_reset(void);
unsigned long sw_stats_verdicts(const struct sw_stats *st);
unsigned long sw_stats_landings(const struct sw_stats *st);
unsigned long sw_stats_contexts(const struct sw_stats *st);
unsigned int sw_policy_verdicts(const char *policy);
const char *sw_stats_wrong(const struct sw_stats *st, const char *policy,
			   char *buf, size_t size);
double sw_ratio(unsigned long part, unsigned long whole);
double sw_promise_kept_share(const struct sw_stats *st);

/* A task's promises, from /proc/<pid>/sched while schedstats are on. */
struct sw_task_promises {
	long kept;
	long broken;
};

int sw_task_promises(pid_t pid, struct sw_task_promises *tp);
int sw_schedstats_set(int on);
long sw_limit_set(long ns);
const char *sw_stats_str(const struct sw_stats *st, char *buf, size_t size);

/* ---- the sched:sched_sync_wakeup and sched_sync_promise events ------ */

#define SW_TRACEFS		"/sys/kernel/tracing"
/* The kernel's events in "sched", or "t:" events in SW_TPROBE_GROUP. */
#define SW_EVENT		"sched_sync_wakeup"
#define SW_PROMISE_EVENT	"sched_sync_promise"
#define SW_TPROBE_GROUP		"sync_wakeup_selftest"
#define SW_WAKEUP_DIR		SW_TRACEFS "/events/sched/sched_wakeup"
#define SW_WAKING_DIR		SW_TRACEFS "/events/sched/sched_waking"
#define SW_WAKEUP_NEW_DIR	SW_TRACEFS "/events/sched/sched_wakeup_new"
#define SW_SWITCH_DIR		SW_TRACEFS "/events/sched/sched_switch"
#define SW_MIGRATE_DIR		SW_TRACEFS "/events/sched/sched_migrate_task"
#define SW_FORK_DIR		SW_TRACEFS "/events/sched/sched_process_fork"

#define SW_TRACE_OWN_MAX	8192
/* Wakers whose group's policy the witness expects (sw_trace_comm_policy()). */
#define SW_TRACE_COMMS		4

/*
 * honest-waker judges a waker by its last SW_PROMISE_HISTORY promises
 * (kernel/sched/sync_wakeup.h): honest if it kept SW_PROMISE_HONEST.
 */
#define SW_PROMISE_HISTORY	8
#define SW_PROMISE_HONEST	4

/* A record (history | count << 8, -1 unknown) that shows its waker honest. */
static inline bool sw_record_honest(int record)
{
	return record >= 0 && __builtin_popcount(record & 0xff) >= SW_PROMISE_HONEST;
}

/* One that shows it dishonest: too many broken to keep SW_PROMISE_HONEST. */
static inline bool sw_record_dishonest(int record)
{
	return record >= 0 && (record >> 8) - __builtin_popcount(record & 0xff) >
			      SW_PROMISE_HISTORY - SW_PROMISE_HONEST;
}

/*
 * After this many promises left unjudged ("shared") since its last kept
 * probe, each wakeup an honest waker would keep is a probe instead;
 * after SW_PROMISE_PROBE_AFTER_KEPT if its last probe was kept.
 */
#define SW_PROMISE_PROBE_AFTER		32
#define SW_PROMISE_PROBE_AFTER_KEPT	63
/*
 * A trusted waker that stops sleeping gets no-sync by this decision (one
 * where it is the waker) at the latest: SW_PROMISE_PROBE_AFTER_KEPT shared
 * promises, one forgiven probe, then the broken ones that leave fewer than
 * SW_PROMISE_HONEST kept of SW_PROMISE_HISTORY.
 */
#define SW_DISTRUST_BOUND	(SW_PROMISE_PROBE_AFTER_KEPT + 1 + \
				 SW_PROMISE_HISTORY - SW_PROMISE_HONEST + 1 + 1)

/*
 * How a promise was judged at its waker's next decision, as
 * sched_sync_promise's cause names it.
 */
enum sw_promise_cause {
	SW_PROMISE_SLEPT,		/* blocked within the limit: kept */
	SW_PROMISE_LATE,		/* blocked after the limit: broken */
	SW_PROMISE_AWAKE,		/* decided again without blocking: broken */
	SW_PROMISE_SHARED,		/* its wakee kept on its CPU: unjudged */
	SW_PROMISE_REPROBE,		/* a first broken probe: forgiven, unjudged */
	SW_NR_PROMISE_CAUSES
};

/* The contexts sched_sync_wakeup's ctx names, in the kernel's order. */
enum sw_context {
	SW_CTX_TASK,
	SW_CTX_SOFTIRQ_BH,
	SW_CTX_SOFTIRQ,
	SW_CTX_HARDIRQ,
	SW_NR_CONTEXTS
};

/* One sync wakeup this process made, in trace order. */
struct sw_own_decision {
	int wakee;
	int verdict;			/* SW_KEPT ... SW_PROBE */
	int ctx;			/* SW_CTX_TASK ... */
	int record;			/* judged on: history | count << 8, -1 unknown */
	int judged;			/* SW_PROMISE_* judged just before it, -1 none */
	int this_cpu, prev_cpu;
};

/* What sw_trace_stop() found in the trace, every task's events. */
struct sw_trace {
	long entries;			/* events of any kind in the buffer */
	long events;			/* sched_sync_wakeup events */
	long verdicts[SW_NR_STATS];	/* of those, by verdict (SW_KEPT...) */
	long ours;			/* of tasks named as this process */
	char other[64];			/* the first of another's: "waker-pid woke comm" */
	long our_verdicts[SW_NR_STATS];	/* of those, by verdict */
	int our_pids;			/* how many of those tasks, up to 8 */
	long paired;			/* followed by their sched_wakeup */
	long pending;			/* whose sched_wakeup came after the end */
	long reciprocal;		/* kept as reciprocal between our tasks, checked */
	long wrong;			/* events that break a rule */
	char why[1024];			/* the first of those, with its lines */
	long own;			/* decisions with this process as waker */
	long own_promises[SW_NR_PROMISE_CAUSES];	/* its promises' ends */
	long contexts[SW_NR_CONTEXTS];	/* decisions by context, every task's */
	long landings[SW_NR_STATS];	/* by where dest_cpu is (SW_LANDED_...) */
	long wakers;			/* in task or softirq_bh context: promises */
	long promises[SW_NR_PROMISE_CAUSES];	/* every task's promises' ends */
	long our_promises[SW_NR_PROMISE_CAUSES];	/* those of tasks named as this */
	/*
	 * Promises of tasks named as this process whose making the trace
	 * holds, their cause checked against the sched_switch events between
	 * (a sched_switch out of a task that was not running, prev_state
	 * other than R, is a block, which moves nvcsw; under PREEMPT_RT, D
	 * only with another block beside it, below).
	 */
	long promises_witnessed;
	/*
	 * Under PREEMPT_RT a D switch is a sleep or a wait for a sleeping
	 * spinlock, which is no block (schedule_rtlock()): the promises of
	 * sw_trace_stop_pid()'s task whose waker switched out in D only since
	 * are counted here instead, with the ones not judged "awake" and the
	 * first such line; and of the witnessed ones, those with a D switch
	 * beside another block.
	 */
	long promises_d_only;
	long promises_d_and_slept;
	long d_only_not_awake;
	char d_only_judged[256];
	long unwitnessed;		/* counters that disagree with the trace */
	char witness[512];		/* which, if any */
	long own_checked;		/* its decisions checked against its record */
	long probes_checked;	/* keeps and probes checked against shared counts */
	long keeps_past_probe;	/* of them, keeps after SW_PROMISE_PROBE_AFTER shared */
	struct sw_own_decision own_seq[SW_TRACE_OWN_MAX];	/* the first of them */
	/*
	 * Wakeups between our tasks in task context whose wakee's previous
	 * CPU, another of the waker's LLC, was idle from the sched_waking to
	 * the sched_wakeup (sched_switch, and no task woken or moved there):
	 * select_idle_sibling() sends such a wakee back there unless a policy
	 * keeps it on the waker CPU. Of those, the wakees that went to the
	 * waker CPU (stacked), and the first of them.
	 */
	long prev_idle;
	long stacked;
	char stacked_why[160];
	/*
	 * Such wakeups, the previous CPU in any LLC, that went on without the
	 * hint (sync=0): wake_affine() returns an idle prev_cpu and
	 * select_idle_sibling() keeps it. Of those, the wakees that went
	 * elsewhere or whose wake_affine() chose another CPU (strayed), and the
	 * first of them; and how many had prev_cpu in another LLC.
	 */
	long unhinted_idle;
	long unhinted_far;
	long strayed;
	char strayed_why[160];
	/*
	 * The decisions of each sw_trace_comm_policy() waker, by verdict and
	 * landing, as its group's cpu.sync_wakeup.stat counts them.
	 */
	struct sw_stats by_comm[SW_TRACE_COMMS];
};

int sw_tracefs_mount(void);
int sw_trace_available(char *why, size_t size);
int sw_trace_fields(const char *event, char *buf, size_t size);
int sw_trace_start(void);
int sw_trace_stop(const char *policy, struct sw_trace *out);
int sw_trace_stop_pid(const char *policy, pid_t own, struct sw_trace *out);
int sw_trace_restore(void);

/* This process' decisions in [@from, @to) of a trace, by verdict. */
struct sw_own_count {
	long n;
	long v[SW_NR_STATS];
};

void sw_own_count(const struct sw_trace *t, long from, long to, struct sw_own_count *c);
long sw_own_as_waker(const struct sw_trace *t, long from, long to);
const char *sw_own_count_str(const struct sw_own_count *c, char *buf, size_t size);
const char *sw_trace_str(const struct sw_trace *t, char *buf, size_t size);

/*
 * A window in which the feature is on for exactly as long as the trace
 * runs: the counters' movement over it must be what the trace shows.
 */
int sw_window_start(bool on, struct sw_stats *before);
int sw_window_stop(const char *policy, pid_t own, const struct sw_stats *before,
		   struct sw_trace *out);

/* ---- presence of the interface -------------------------------------- */

enum sw_iface {
	SW_IFACE_OK,
	SW_IFACE_ABSENT,	/* not a patched kernel, or the part is configured out: SKIP */
	SW_IFACE_BROKEN,	/* some of it is there, some not: FAIL */
};

enum sw_iface sw_iface_check(bool need_debugfs, char *why, size_t size);

/* ---- cpu cgroups ---------------------------------------------------- */

/* A group's policy ("inherit" or a name), what its wakers get, its counts. */
#define SW_CG_POLICY		"cpu.sync_wakeup"
#define SW_CG_EFFECTIVE		"cpu.sync_wakeup.effective"
#define SW_CG_STAT		"cpu.sync_wakeup.stat"
#define SW_CG_INHERIT		"inherit"
/* cpu.sync_wakeup.stat has sync_wakeups, the verdicts, the landings. */
#define SW_CG_NR_STATS		(SW_LAST_LANDING + 1)

int sw_cgroup_root(char *buf, size_t size);
int sw_cgroup_cpu_on(const char *dir, bool *was_on);
int sw_cgroup_cpu_off(const char *dir);
int sw_cgroup_enter(const char *dir, pid_t pid);
int sw_cgroup_leave(const char *dir, const char *to);
int sw_cgroup_read(const char *dir, const char *file, char *buf, size_t size);
int sw_cgroup_write(const char *dir, const char *file, const char *s);
int sw_cgroup_stats_read(const char *dir, struct sw_stats *st);

/*
 * The witness (sw_trace_stop()) expects the decisions whose waker, in
 * task or softirq_bh context, is named @comm to follow @policy, its cpu
 * cgroup's, and counts them apart (struct sw_trace's by_comm). At most
 * SW_TRACE_COMMS; cleared by sw_trace_comm_policy(NULL, NULL).
 */
int sw_trace_comm_policy(const char *comm, const char *policy);

/* ---- save and restore ----------------------------------------------- */

struct sw_saved {
	bool have_feature;
	bool feature;
	bool have_policy;
	char policy[64];
};

void sw_save(struct sw_saved *s);
int sw_restore(const struct sw_saved *s);
bool sw_restore_initial_state(void);

/* ---- topology ------------------------------------------------------- */

int sw_nr_allowed_cpus(void);
int sw_test_needs(char *why, size_t size);
bool sw_kernel_rt(void);
/*
 * Are the bounds that hold in make check's guests judged here? It sets
 * SW_JUDGE_SHARES=1 on QEMU's instruction-counting clock.
 */
bool sw_judging(void);
int sw_smt_active(void);
int sw_nr_llcs(void);
int sw_pin(pid_t pid, int a, int b);
long sw_cpu_capacity(int cpu);
int sw_asym_capacity(void);

/* ---- forked helpers ------------------------------------------------- */

/* A child's verdict, in memory shared with the parent. */
struct sw_child_result {
	int code;		/* KSFT_PASS, KSFT_FAIL or KSFT_SKIP */
	char msg[512];
};

struct sw_child_result *sw_child_result_alloc(void);
int sw_run_child(int (*fn)(struct sw_child_result *r, void *arg),
		 void *arg, struct sw_child_result *r);
int sw_drop_privileges(void);

/* ---- workloads ------------------------------------------------------ */

double sw_now_us(void);
int sw_read_full(int fd, void *buf, size_t len);
int sw_write_full(int fd, const void *buf, size_t len);

struct sw_pingpong {
	long handoffs[2];	/* [0]: parent -> child, [1]: child -> parent */
	long same_cpu[2];	/* of those, received on the sender's CPU */
	double usec_per_round;
	int child_err;
	pid_t child;		/* the wakee of this process' wakeups */
};

/*
 * The child answers once the parent has blocked, polled every 1 ms: a
 * shorter poll (20 us) made its timer interrupt the parent's vCPU under
 * TCG, which broke a third of the promises (llc2, 2026-11).
 */
#define SW_PP_ANSWER_ASLEEP	0x1
#define SW_PP_BOTH_ASLEEP	0x2	/* and this process waits for the child */
/* or waits only for a child that answered from another CPU */
#define SW_PP_APART_ASLEEP	0x4
#define SW_ASLEEP_POLL_US	1000

int sw_wait_asleep(int fd, bool spin);
long sw_nvcsw(void);
int sw_wait_blocked(int fd, long nvcsw);
long sw_pp_handoffs(const struct sw_pingpong *pp);
double sw_pp_share(const struct sw_pingpong *pp);
int sw_pingpong_run(long warmup, long rounds, unsigned int flags,
		    struct sw_stats *st, struct sw_pingpong *out);

/*
 * A pipe pair whose wakee sets itself up: sw_pair_run() calls @turn in the
 * wakee before its first read (@first) and before each answer; a @turn that
 * fails returns nonzero. With @answer_asleep the wakee answers only once
 * the waker has blocked since its write (sw_wait_blocked(), polling).
 */
struct sw_pair {
	int (*turn)(void *arg, bool first);
	void *arg;
	bool answer_asleep;
};

int sw_pair_run(const struct sw_pair *pair, int a, int b, long rounds, const char **why);

#define SW_FANOUT_MAX_READERS	8
/* How long a fan-out reader may take to block again: a hung reader. */
#define SW_FANOUT_WAIT_S	10

struct sw_fanout {
	long writes;
	long bytes_read;	/* by all readers, once they saw EOF */
	double usec;
	const char *why;	/* how a reader failed (-ECHILD), else NULL */
};

int sw_fanout_run(int readers, long rounds, bool round_robin,
		  struct sw_stats *st, struct sw_fanout *out);

/*
 * Over loopback, a send runs NET_RX from the sender's local_bh_enable()
 * (softirq_bh): the receiver's wakeup is the sender's sync wakeup.
 */
struct sw_net {
	long sent;		/* messages this process sent */
	long answered;		/* TCP: answers it received */
	int child_err;
};

int sw_tcp_pingpong_run(long rounds, struct sw_net *out);
int sw_udp_stream_run(long messages, long pause_us, struct sw_net *out);

/* ---- exit ----------------------------------------------------------- */

/*
 * The one definition in this header, compiled into each test program's own
 * file and not into sync_wakeup.c: kselftest.h keeps its result counts in
 * static variables of every file that includes it, so only the test's file
 * can tell that all its tests were skipped.
 *
 * A test killed by the harness' timeout never reaches its teardown: the
 * main process puts back the state it found, and the trace settings, when
 * it exits.
 *
 * The harness exits 0 when every test was skipped, which run_kselftest.sh
 * reports as "ok": exit with KSFT_SKIP instead, so that a kernel without
 * the interface reads as skipped at every level.
 */
#ifndef SW_LIBRARY
static void __attribute__((destructor)) sw_exit(void)
{
	if (!sw_restore_initial_state())
		return;
	if (ksft_get_xskip_cnt() && !ksft_get_pass_cnt() && !ksft_get_fail_cnt() &&
	    !ksft_get_xpass_cnt() && !ksft_get_xfail_cnt() && !ksft_get_error_cnt()) {
		fflush(stdout);
		fflush(stderr);
		_exit(KSFT_SKIP);
	}
}
#endif

#endif /* __SYNC_WAKEUP_H */
