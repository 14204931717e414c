/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sched_sync_wakeup

#if !defined(_TRACE_SCHED_SYNC_WAKEUP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCHED_SYNC_WAKEUP_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

/*
 * Trace events on the sched_sync_wakeup_tp and sched_sync_promise_tp
 * tracepoints, for the selftests on kernels without fprobe events and BTF;
 * not posted. Included from kernel/sched/sync_wakeup.h, which declares the
 * enums. The names are those of the debugfs counters (sync_wakeup.c).
 */
TRACE_DEFINE_ENUM(SYNC_POLICY_HINT_ONLY);
TRACE_DEFINE_ENUM(SYNC_POLICY_WAKER_IF_ALONE);
TRACE_DEFINE_ENUM(SYNC_POLICY_RECIPROCAL_ONLY);
TRACE_DEFINE_ENUM(SYNC_POLICY_NO_SYNC);
TRACE_DEFINE_ENUM(SYNC_POLICY_RECIPROCAL_STRICT);
TRACE_DEFINE_ENUM(SYNC_POLICY_HONEST_WAKER);

TRACE_DEFINE_ENUM(SYNC_VERDICT_KEPT);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_SMT);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_NOT_RECIPROCAL);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_WAKER_BUSY);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_CAPACITY);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_NOT_AFFINE);
TRACE_DEFINE_ENUM(SYNC_VERDICT_DECLINED_WAKE_WIDE);
TRACE_DEFINE_ENUM(SYNC_VERDICT_HINT_DROPPED);
TRACE_DEFINE_ENUM(SYNC_VERDICT_HINT_ONLY);
TRACE_DEFINE_ENUM(SYNC_VERDICT_PROBE);

TRACE_DEFINE_ENUM(SYNC_CTX_TASK);
TRACE_DEFINE_ENUM(SYNC_CTX_SOFTIRQ_BH);
TRACE_DEFINE_ENUM(SYNC_CTX_SOFTIRQ);
TRACE_DEFINE_ENUM(SYNC_CTX_HARDIRQ);

TRACE_DEFINE_ENUM(SYNC_PROMISE_SLEPT);
TRACE_DEFINE_ENUM(SYNC_PROMISE_LATE);
TRACE_DEFINE_ENUM(SYNC_PROMISE_AWAKE);
TRACE_DEFINE_ENUM(SYNC_PROMISE_SHARED);
TRACE_DEFINE_ENUM(SYNC_PROMISE_REPROBE);

#define show_sync_policy(policy)					\
	__print_symbolic(policy,					\
		{ SYNC_POLICY_HINT_ONLY,		"hint-only" },		\
		{ SYNC_POLICY_WAKER_IF_ALONE,		"waker-if-alone" },	\
		{ SYNC_POLICY_RECIPROCAL_ONLY,		"reciprocal-only" },	\
		{ SYNC_POLICY_NO_SYNC,			"no-sync" },		\
		{ SYNC_POLICY_RECIPROCAL_STRICT,	"reciprocal-strict" },	\
		{ SYNC_POLICY_HONEST_WAKER,		"honest-waker" })

#define show_sync_verdict(verdict)					\
	__print_symbolic(verdict,					\
		{ SYNC_VERDICT_KEPT,			"kept_on_waker_cpu" },	\
		{ SYNC_VERDICT_DECLINED_SMT,		"declined_smt_active" }, \
		{ SYNC_VERDICT_DECLINED_NOT_RECIPROCAL,	"declined_not_reciprocal" }, \
		{ SYNC_VERDICT_DECLINED_WAKER_BUSY,	"declined_waker_busy" }, \
		{ SYNC_VERDICT_DECLINED_CAPACITY,	"declined_capacity" },	\
		{ SYNC_VERDICT_DECLINED_NOT_AFFINE,	"declined_not_affine" }, \
		{ SYNC_VERDICT_DECLINED_WAKE_WIDE,	"declined_wake_wide" },	\
		{ SYNC_VERDICT_HINT_DROPPED,		"hint_dropped" },	\
		{ SYNC_VERDICT_HINT_ONLY,		"hint_only" },		\
		{ SYNC_VERDICT_PROBE,			"probe" })

#define show_sync_ctx(ctx)						\
	__print_symbolic(ctx,						\
		{ SYNC_CTX_TASK,			"task" },		\
		{ SYNC_CTX_SOFTIRQ_BH,			"softirq_bh" },		\
		{ SYNC_CTX_SOFTIRQ,			"softirq" },		\
		{ SYNC_CTX_HARDIRQ,			"hardirq" })

#define show_sync_promise_cause(cause)					\
	__print_symbolic(cause,						\
		{ SYNC_PROMISE_SLEPT,			"slept" },		\
		{ SYNC_PROMISE_LATE,			"late" },		\
		{ SYNC_PROMISE_AWAKE,			"awake" },		\
		{ SYNC_PROMISE_SHARED,			"shared" },		\
		{ SYNC_PROMISE_REPROBE,			"reprobe" })

/* The arguments of sched_sync_wakeup_tp (include/trace/events/sched.h). */
TRACE_EVENT(sched_sync_wakeup,
	    TP_PROTO(struct task_struct *p, unsigned int policy,
		     unsigned int verdict, unsigned int ctx, int prev_cpu,
		     int affine_cpu, int dest_cpu),
	    TP_ARGS(p, policy, verdict, ctx, prev_cpu, affine_cpu, dest_cpu),
	    TP_STRUCT__entry(__array(char, comm, TASK_COMM_LEN)
			     __field(pid_t, pid)
			     __field(u8, policy)
			     __field(u8, verdict)
			     __field(u8, ctx)
			     __field(int, prev_cpu)
			     __field(int, affine_cpu)
			     __field(int, dest_cpu)),
	    TP_fast_assign(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
			   __entry->pid = p->pid;
			   __entry->policy = policy;
			   __entry->verdict = verdict;
			   __entry->ctx = ctx;
			   __entry->prev_cpu = prev_cpu;
			   __entry->affine_cpu = affine_cpu;
			   __entry->dest_cpu = dest_cpu;),
	    TP_printk("comm=%s pid=%d policy=%s verdict=%s ctx=%s prev_cpu=%d affine_cpu=%d dest_cpu=%d",
		      __entry->comm, __entry->pid,
		      show_sync_policy(__entry->policy),
		      show_sync_verdict(__entry->verdict),
		      show_sync_ctx(__entry->ctx), __entry->prev_cpu,
		      __entry->affine_cpu, __entry->dest_cpu)
);

/* The arguments of sched_sync_promise_tp (include/trace/events/sched.h). */
TRACE_EVENT(sched_sync_promise,
	    TP_PROTO(struct task_struct *p, unsigned int cause, u64 ran,
		     u64 limit, unsigned int history, unsigned int count),
	    TP_ARGS(p, cause, ran, limit, history, count),
	    TP_STRUCT__entry(__array(char, comm, TASK_COMM_LEN)
			     __field(pid_t, pid)
			     __field(u8, cause)
			     __field(u8, history)
			     __field(u8, count)
			     __field(u64, ran)
			     __field(u64, limit)),
	    TP_fast_assign(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
			   __entry->pid = p->pid;
			   __entry->cause = cause;
			   __entry->history = history;
			   __entry->count = count;
			   __entry->ran = ran;
			   __entry->limit = limit;),
	    TP_printk("comm=%s pid=%d cause=%s history=0x%02x count=%u ran=%llu limit=%llu",
		      __entry->comm, __entry->pid,
		      show_sync_promise_cause(__entry->cause),
		      __entry->history, __entry->count, __entry->ran,
		      __entry->limit)
);

#endif /* _TRACE_SCHED_SYNC_WAKEUP_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
