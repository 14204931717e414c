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
 * A sync wakeup that SYNC_PAIR_AFFINE decided, once select_task_rq_fair()
 * has chosen where the wakee @p goes: @policy is the policy that decided
 * (for reciprocal-strict, the one it applied), @verdict its verdict, @sync
 * the hint as the rest of select_task_rq_fair() saw it, @affine_cpu what
 * wake_affine() chose (-1: it did not run) and @dest_cpu the result.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */
TRACE_EVENT(sched_sync_wakeup,
	    TP_PROTO(struct task_struct *p, const char *policy,
		     const char *verdict, int sync, int this_cpu, int prev_cpu,
		     int affine_cpu, int dest_cpu),
	    TP_ARGS(p, policy, verdict, sync, this_cpu, prev_cpu, affine_cpu,
		    dest_cpu),
	    TP_STRUCT__entry(__array(char, comm, TASK_COMM_LEN)
			     __field(pid_t, pid)
			     __string(policy, policy)
			     __string(verdict, verdict)
			     __field(int, sync)
			     __field(int, this_cpu)
			     __field(int, prev_cpu)
			     __field(int, affine_cpu)
			     __field(int, dest_cpu)),
	    TP_fast_assign(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
			   __entry->pid = p->pid;
			   __assign_str(policy);
			   __assign_str(verdict);
			   __entry->sync = sync;
			   __entry->this_cpu = this_cpu;
			   __entry->prev_cpu = prev_cpu;
			   __entry->affine_cpu = affine_cpu;
			   __entry->dest_cpu = dest_cpu;),
	    TP_printk("comm=%s pid=%d policy=%s verdict=%s sync=%d this_cpu=%d prev_cpu=%d affine_cpu=%d dest_cpu=%d",
		      __entry->comm, __entry->pid, __get_str(policy),
		      __get_str(verdict), __entry->sync, __entry->this_cpu,
		      __entry->prev_cpu, __entry->affine_cpu, __entry->dest_cpu)
);

/*
 * The waker @p's pending promise to sleep has ended: kept (it blocked) or
 * broken (@cause: the second tick that found it running, or a sync wakeup of
 * another task). @history is its record after this outcome, the newest in
 * bit 0, of which honest-waker reads the last @count.
 */
TRACE_EVENT(sched_sync_promise,
	    TP_PROTO(struct task_struct *p, bool kept, const char *cause),
	    TP_ARGS(p, kept, cause),
	    TP_STRUCT__entry(__array(char, comm, TASK_COMM_LEN)
			     __field(pid_t, pid)
			     __field(int, kept)
			     __string(cause, cause)
			     __field(u8, history)
			     __field(u8, count)),
	    TP_fast_assign(memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
			   __entry->pid = p->pid;
			   __entry->kept = kept;
			   __assign_str(cause);
			   __entry->history = p->sync_promise_history;
			   __entry->count = p->sync_promise_count;),
	    TP_printk("comm=%s pid=%d kept=%d cause=%s history=0x%02x count=%u",
		      __entry->comm, __entry->pid, __entry->kept,
		      __get_str(cause), __entry->history, __entry->count)
);

#endif /* _TRACE_SCHED_SYNC_WAKEUP_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
