/*
 * pc_snapshot.h: the one data boundary between lib/gpu and the report.
 *
 * When a region ends, lib/gpu hands the session an owned, plain-C snapshot of
 * what the region collected (pc_gpu_region_harvest): its kernel executions
 * (one row per activity record, with the signature, context, stream and
 * correlation id), the profiled launches with their host intervals and
 * counter values, the signatures (names, launch configuration, attributes
 * from the driver or the facts to compute them), the contexts and devices
 * they ran on, the transfers, and the counts and notes of what went wrong.
 * No pointer in it points into lib/gpu's tables: everything is a copy.
 *
 * The snapshot lives in model/, below capture/ (whose tables lib/gpu's
 * collector fills it from) and report/ (which reads it): pc_region_build
 * (report/pc_region_build.h) is the one pure function that turns a
 * snapshot into report entries: the region with its step-1 numbers (busy
 * time over every stream, gaps, the wall clock with perfcheck's own
 * profiling cut out), one kernel entry per signature launched directly in
 * the region (durations, counter averages, names, attributes), and the
 * checklist's verdicts.  A snapshot can be written to a JSON file and read
 * back (report/pc_snapshot_json.h, schema "perfcheck-snapshot/1"), so an
 * in-process verdict is a CPU test on a recorded snapshot, the way ncu
 * exports are.
 *
 * Times are nanoseconds on CUPTI's clock (cuptiGetTimestamp and the activity
 * records share it); 0 means unknown.
 */
#ifndef PC_SNAPSHOT_H
#define PC_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/pc_core.h"

#define PC_SNAPSHOT_SCHEMA "perfcheck-snapshot/1"

/* Why a signature's launches in a region were not profiled. */
typedef enum pc_not_profiled {
  PC_NP_NONE = 0,
  PC_NP_TIMING,                 /* counters off (timing mode or refused) */
  PC_NP_GRAPH,                  /* launched by a CUDA graph */
  PC_NP_FILTERED,               /* kernel_regex did not match */
  PC_NP_SKIPPED,                /* inside launch_skip */
  PC_NP_LIMIT,                  /* launch_count reached */
  PC_NP_FAILED,                 /* the profiled launch failed */
  PC_NP_CAPTURE,                /* a stream capture was in progress */
  PC_NP_NVTX,                   /* outside the NVTX ranges of the counter gate (PERFCHECK_NVTX) */
  PC_NP_EARLIER_RUN,            /* profiled in an earlier run of a region of the same name */
  PC_NP_COMMUNICATION,          /* a communication kernel (NCCL's): never replayed */
  PC_NP_GRAPH_GROUPS,           /* a graph launch: the set could not be split into one-pass groups */
  PC_NP_COUNT_
} pc_not_profiled;

/* "none", "timing", "graph", "filtered", "skipped", "limit", "failed",
 * "capture", "nvtx", "earlier_run", "communication", "graph_groups"; NULL out
 * of range.  pc_not_profiled_parse: -1 unknown. */
const char *pc_not_profiled_name(pc_not_profiled np);
int pc_not_profiled_parse(const char *word);

/* Flags of a kernel execution (pc_snap_launch.flags). */
enum {
  PC_SNAP_PROFILED = 1u,        /* its launch was range-profiled */
  PC_SNAP_INHERITED = 2u,       /* launched in a nested region that ended first: counts for busy time only */
  PC_SNAP_NOTIME = 4u,          /* its record had no timestamps (start = end = 0): a launch, not a time */
  PC_SNAP_GRAPH = 8u,           /* a kernel of a cuGraphLaunch */
  PC_SNAP_CAPTURED = 16u        /* ... whose kernel was recorded by stream capture */
};

/* One kernel execution: one activity record. */
typedef struct pc_snap_launch {
  uint64_t start, end;          /* 0 and 0 with PC_SNAP_NOTIME */
  uint32_t sig;                 /* index into pc_snapshot.sigs (which names its context) */
  uint32_t correlation_id;      /* CUPTI's; a graph's kernels share their cuGraphLaunch's */
  uint32_t stream;              /* CUPTI's stream id; 0 unknown */
  uint32_t flags;               /* PC_SNAP_* */
} pc_snap_launch;

/* One range-profiled launch: its host interval and its counter values. */
enum {
  PC_SNAP_PROF_INHERITED = 1u,  /* a nested region's: its interval is cut from this wall clock, no counters */
  PC_SNAP_PROF_RESULT = 2u,     /* the counter layer returned a result (values may still be NaN) */
  PC_SNAP_PROF_COLD = 4u,       /* the launch started from an L2 perfcheck flushed: its DRAM bytes are a cold run's */
  /* A graph launch whose turn fell on a group that needs more than one pass
   * alone (a SOL row of `sol` or `full`): a graph launch is never replayed,
   * so nothing was measured; `group` and `passes` say which and how many. */
  PC_SNAP_PROF_SKIPPED = 8u
};
typedef struct pc_snap_profiled {
  uint32_t correlation_id;
  uint32_t sig;                 /* index into sigs; UINT32_MAX for an inherited one not listed, and
                                   for perfcheck's host time in a call that profiled nothing (a
                                   session closed there: correlation 0, inherited, no result):
                                   an interval to cut, nothing else */
  uint32_t flags;               /* PC_SNAP_PROF_* */
  /* ENTER before the counter layer's work (first enable, SetConfig, Start)
   * and EXIT after it (Stop, Decode, Evaluate): everything in between,
   * replays and memory save/restore included, is perfcheck's cost except the
   * kernel's own run (values[PC_M_DURATION]).  0: unknown. */
  uint64_t enter_ts, exit_ts;
  int passes;
  /* Rotation: the group of the set these values are (one pass,
   * a user range around this one launch), -1 the whole set (kernel replay);
   * groups: the set's groups with rotation, 0 without. */
  int group, groups;
  double values[PC_M_COUNT];    /* NaN: not measured */
  double *extra;                /* pc_snapshot.nextra values, or NULL */
} pc_snap_profiled;

typedef struct pc_snap_context {
  int device;                   /* CUDA ordinal; -1 unknown */
  char pci_bus_id[16];          /* "0000:19:00.0"; "" unknown */
} pc_snap_context;

typedef struct pc_snap_device {
  int ordinal;
  char pci_bus_id[16];
  pc_device facts;
} pc_snap_device;

/* Where a signature's launch attributes came from. */
typedef enum pc_snap_attr_from {
  PC_SNAP_ATTR_NONE = 0,        /* unavailable: attr_note says why */
  PC_SNAP_ATTR_DRIVER,          /* attr holds the driver's answer (attr_note: a failed occupancy call, or "") */
  PC_SNAP_ATTR_RECORD           /* from the activity record (rec_*) and perfcheck's model (attr_note: why not the driver) */
} pc_snap_attr_from;

/* One launch signature: function, context, grid, block, dynamic shared memory. */
typedef struct pc_snap_sig {
  char *mangled;                /* NULL when unknown */
  /* Which compiled function (pc_sigtab.h, functions): the same number for
   * every launch handle of one function in the process, another for a
   * kernel of the same name from another module; 0 unknown (a graph, a
   * snapshot without it). */
  uint32_t function;
  uint32_t context;             /* index into contexts */
  unsigned grid[3], block[3], cluster[3];
  unsigned dynamic_smem;
  pc_not_profiled not_profiled; /* why its launches of this region have no counters */
  pc_snap_attr_from attr_from;
  int attr_new;                 /* read at this region's end (the first region to need them): its notes are new */
  pc_attributes attr;           /* PC_SNAP_ATTR_DRIVER only */
  char *attr_note;              /* NULL or "" when there is nothing to say */
  int rec_valid;                /* the activity record's facts below are known */
  unsigned rec_registers, rec_static_smem, rec_local;
  uint32_t graph_id;            /* a graph kernel: CUPTI's graph id and node id of its first record; 0 none
                                   (a graph signature: its kernels' graph id, node 0) */
  uint64_t graph_node;
  /* A graph signature: not a kernel but a CUDA graph exec
   * launched on `context` (grid and block 0, no name).  Its launches are
   * listed in pc_snapshot.graph_launches, its kernels are the launch rows
   * that carry their correlation ids, and its profiled launches hold
   * counters of the whole graph launch (a user range around it). */
  int is_graph;
  uint64_t graph_exec;          /* CUPTI's graph exec id (else the handle): its identity in the process */
} pc_snap_sig;

/* One cuGraphLaunch of the region: its kernels' rows carry its correlation id. */
typedef struct pc_snap_graph_launch {
  uint32_t correlation_id;
  uint32_t sig;                 /* index into sigs: a graph signature */
} pc_snap_graph_launch;

typedef struct pc_snapshot {
  /* The region. */
  char *name;
  char *parent;                 /* NULL at top level */
  int depth;
  int program;                  /* the injection library's whole-program region: its kernels carry no region */
  uint64_t begin_ts, end_ts;    /* 0: unknown */
  uint64_t launch_calls;        /* launch calls made inside it (nested regions included) */
  uint64_t failed_calls;        /* of those, calls that returned an error */
  uint64_t dropped_records;     /* activity records CUPTI dropped meanwhile */
  uint64_t zero_ts_records;     /* unprofiled kernel records without timestamps */
  uint64_t missing_records;     /* launches whose kernel record never arrived */
  int spans_lost;               /* out of memory: some kernel timings are lost */
  char *fault;                  /* a kernel fault seen at its end; NULL none */
  int first_device;             /* ordinal of the first context that synchronized; -1 */

  /* Counters. */
  int counters;                 /* counters were asked for (not timing mode) */
  char metric_set[32];          /* "" when counters are off */
  char *counters_note;          /* why counters are off; NULL when on or not asked */
  int passes;                   /* passes per profiled launch so far, 0 none */
  unsigned char via_substitute[PC_M_COUNT]; /* 1: the metric is collected through its substitute */
  size_t nextra;
  char **extra_names;           /* the user's metrics beyond the table */
  size_t nrejected;
  char **rejected, **rejected_reason; /* metric names CUPTI refused, every one so far */
  size_t nnotes;
  char **notes;                 /* warnings from lib/gpu, in order */

  size_t ncontexts, ndevices, nsigs, nlaunches, nprofiled, nmemcpys, nmemsets, ngraph_launches;
  pc_snap_context *contexts;
  pc_snap_device *devices;
  pc_snap_sig *sigs;
  pc_snap_launch *launches;
  pc_snap_profiled *profiled;
  pc_span *memcpys;             /* start, end, group = copy kind */
  pc_span *memsets;             /* start, end */
  pc_snap_graph_launch *graph_launches; /* the region's own graph launches */

  /* Informational: where the numbers came from (not read by the builder). */
  char tool_version[32];
  char cupti_path[512];         /* "" unknown */
  unsigned cupti_version;       /* cuptiGetVersion; 0 unknown */
  int cupti_preloaded;          /* -1 unknown */
  char demangler[96];           /* "" none */
} pc_snapshot;

/* An empty snapshot (every count 0, first_device -1); NULL on OOM. */
pc_snapshot *pc_snapshot_new(void);
void pc_snapshot_free(pc_snapshot *s);

/* Appending (zeroed entries, values NaN, attributes unknown); NULL / -1 on
 * OOM.  Pointers returned stay valid until the next append to that array. */
pc_snap_sig *pc_snapshot_add_sig(pc_snapshot *s);
pc_snap_context *pc_snapshot_add_context(pc_snapshot *s);
pc_snap_device *pc_snapshot_add_device(pc_snapshot *s);
pc_snap_profiled *pc_snapshot_add_profiled(pc_snapshot *s);
pc_snap_launch *pc_snapshot_add_launch(pc_snapshot *s);
pc_snap_graph_launch *pc_snapshot_add_graph_launch(pc_snapshot *s);
int pc_snapshot_add_transfer(pc_snapshot *s, int memset, uint64_t start, uint64_t end, uint32_t kind);
int pc_snapshot_add_note(pc_snapshot *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The device facts of ordinal `ordinal` in the snapshot, or NULL. */
const pc_device *pc_snapshot_device(const pc_snapshot *s, int ordinal);

/* "DIR/NAME.json" with NAME the region's name made safe for a file name
 * (letters, digits, '.', '-', '_'; anything else '_'; at most 100 bytes),
 * and ".N" before ".json" for the N-th region of that name (seq >= 2).
 * Returns 0, or -1 when it does not fit. */
int pc_snapshot_file_name(const char *dir, const char *region, unsigned seq, char *out, size_t len); /* one-channel-ok: the file name is its result */

#endif /* PC_SNAPSHOT_H */
