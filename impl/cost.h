// The compositional cost model (Figure 4 of the Kriek report): a node's cost is its own cost plus its children's
// weighted by how often they run; its peak memory per level is its own buffers plus the largest child peak.
// Every constant lives in CostModel, one documented struct per target, so measurement can calibrate it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "impl/memory.h"
#include "impl/node.h"
#include "spec/target.h"

namespace kriek {

/// Cost units: 1/16 of a core cycle, integral so that sums and ties are exact and thread-order independent.
using Cost = std::uint64_t;

/// Per-target constants, in Cost units (1/16 cycle) unless said otherwise.
struct CostModel {
  /// Bumped whenever a formula changes: tables built with another version are stale. 17: sums and dots at
  /// their port rate, scalar copies and their loops, one-element RF buffers cheaper (a transposing copy). 18: tiles
  /// of dots, a lane step a shuffle and an add. 19: a tile's dots summed in transpose trees. 20: dots of any length
  /// (a partial last register masked). 21: a loop whose body keeps the FMA ports busy for four iterations from L1
  /// or registers pays a quarter iteration. 22: a strided operand is aligned only when every run is (tiles of
  /// rows that are not whole lines are not), and bcast_fma's unaligned rhs row from L2 adds a line's time. 23:
  /// bcast_fma's FMA ports, load ports and L2 stream overlap in part (an eighth of the two less busy adds). 24: an
  /// output tile reloaded into registers from L1 takes a load per register. 25: an alias of the output pays for its
  /// lines going back too (output_return_percent). 26: bcast_fma's L2 stream hides behind the FMAs when they bound
  /// the k-step (stream_overlap_eighths). 27: an unrolled loop whose straight-line code outgrows the instruction
  /// cache fetches the rest from L2 on every run (code_cache_bytes). 28: a contiguous rhs row from L2 hides a loop's
  /// iterations; 29: only where the loop streams its rhs as one sequential run (streamed_rows_hide_iteration); 30:
  /// only the rhs of a matmul's or conv's body (29 also took an elementwise op's second input for one). 31: a slide
  /// window's new part per step along the dimension it moves (30 took dimension 0, a batch of 1 for a rank-4
  /// image, and so priced every step as loading the whole window). 32: a parallel loop's boundary trips run on
  /// its team with the full ones (team_share_runs), where they ran after them on one core. 33: bcast_fma's
  /// broadcasts at the profile's broadcast rate (vector_broadcast), not its widest loads'. 34: a row of one register
  /// broadcasts as the FMA's memory operand (vector_broadcast_operand). 35: an input's run aliased into L1 from L2 hid
  /// behind the FMAs that read it (reverted: see README, cost model). 36: only a whole register tile one register
  /// wide (not one column of a wider tile, whose rows' broadcasts the columns share) broadcasts as memory operands.
  std::uint32_t version = 36;
  /// Bringing one 64-byte line from a level into a faster cache, indexed by source Level (GL, L2, L1).
  std::array<Cost, kLevelCount> line_from{96, 24, 8, 0, 0};
  /// Extra cost, in percent, of moving lines that are not one contiguous range (one stream per row).
  Cost strided_percent = 25;
  /// Fixed cost of one loop iteration (index update, branch); loops over register-held operands are unrolled
  /// and cost none; a quarter of it where the body is single elements (the compilers unroll those) or keeps the
  /// FMA ports busy from L1 for four iterations' time (the index update and branch run on other ports).
  Cost loop_iteration = 16;
  /// A parallel loop beyond its share of the work: the team's start and join on kriek's runtime, whose workers
  /// spin between loops (1200 cycles; `kriek calibrate` measures it). Sapphire Rapids, 2 threads, the same picks:
  /// matmul 64^3 1.87 us against 2.69 serial, 82x99x63 4.69 against 6.11, 128^3 11.6 against 23.7. (6400 cycles
  /// before, on TBB, whose parked workers woke for every loop: 64^3 stayed serial; 3000 before that, an OpenMP
  /// region's fastest start.)
  Cost parallel_launch = 19200;
  /// Cores a parallel loop spreads over.
  std::uint32_t cores = 2;
  /// A line one core reads that another core's private cache holds (a snoop, at about the latency of the L3:
  /// 64 cycles), read from a buffer a thread team wrote (TensorSpec::shared). On 2 threads of Sapphire Rapids that
  /// cost 70-120 cycles per line the other core wrote: conv1's padded image (5K such lines) 778 against 610 us
  /// read by the core that wrote it, conv 1x28x28x512 1x1x512x128's packed filters (2K lines) 298 against 262 us.
  Cost cross_core_line = 1024;
  /// Reading (or writing) one element a kernel touches in memory, by Level (GL, L2, L1); 0 for registers.
  std::array<Cost, kLevelCount> element_access{48, 12, 2, 0, 0};
  /// One vector FMA at full throughput (2 per cycle).
  Cost vector_fma = 8;
  /// The shortest time one step of dependent FMAs takes (4-cycle latency).
  Cost fma_latency = 64;
  /// One vector load from L1 (2 per cycle) and one vector store to L1 (1 per cycle). bcast_fma charges its
  /// broadcasts and the rhs row's loads on the load ports against its FMAs (the larger wins); vec_load from L1
  /// is therefore free on its own, and from slower levels costs vector_load plus the lines it brings.
  Cost vector_load = 8;
  /// One broadcast of a float from L1 into every lane (bcast_fma's lhs): a load as wide as the float, which a
  /// core may issue faster than its widest loads (the Zen 4 VM: 1.01 per cycle against 0.87 512-bit loads).
  Cost vector_broadcast = 8;
  /// The same broadcast as an FMA's memory operand ({1to16}), which the compilers emit where the broadcast feeds one
  /// FMA (a register tile one register wide): the load unit broadcasts, no shuffle. On the Zen 4 VM 1.8-2.0 per cycle
  /// where a `vbroadcastss` into a register goes at 1.0: a 14x16 tile's k-step (14 broadcasts, a row load, 14 FMAs)
  /// runs at one FMA a cycle there, which the register broadcasts' rate priced load-bound (17 cycles for 14).
  Cost vector_broadcast_operand = 8;
  Cost vector_store = 16;
  /// One vector ALU op (zero, add, max, ...), and one scalar op.
  Cost vector_op = 8;
  Cost scalar_op = 16;
  /// Setting up a buffer of a move or pipeline (address computation, no allocation on the hot path).
  Cost buffer_setup = 16;
  /// What an alias of the output pays for each line going back (written back to the level it came from), in
  /// percent of the line coming in: half (the write-backs drain in the background, in part). Matmuls on one core
  /// (Cascade Lake, picks of 0 and 50 compiled into one process, alternating; bench_models): 384x768x3072 0.75x
  /// the time (K split in 128 reloaded its 4.7 MB output six times from L3; now each output tile keeps all of K),
  /// 128x768x768 0.89x, 128x3072x768 0.94x, 1000^3 0.92x, 300x700x500 0.96x, 384x3072x768 1.06x; 8 of 15 picks
  /// the same (4 conv layers among them); geomean 0.963. At 100 conv res2_3x3 also moved, 1.055x.
  Cost output_return_percent = 50;
  /// bcast_fma's three resources (FMA ports, load ports, the lines its rhs row streams in from L2) overlap in part:
  /// beside the busiest, an eighth of the FMA and load ports' time adds, and `stream_overlap_eighths` eighths of the
  /// stream's: none (the prefetchers keep the lines coming while the FMAs run). Picks of 1 and 0 compiled into one
  /// process, one core, alternating (bench_models): matmul 384x3072x768 0.84-0.89x the time (6x64 tiles over B
  /// from L2, not 12x32 ones), conv 1x28x28x128 1x1x128x512 0.94x, res4_3x3 0.92-0.93x, res2_3x3 1.00x (the
  /// evidence of cost model 23), 200x300x170 0.95-1.01x; 10 of 15 picks the same.
  Cost stream_overlap_eighths = 0;
  /// Bytes of code a loop unrolled over register-held operands (unrolled_axes) may take before the core fetches
  /// the rest from L2 on every run: the L1 instruction cache (32 KiB on the Intel and AMD cores kriek targets).
  /// Only bodies that run as straight-line code count (unrolled_code_bytes). reducesum[axis=1] 256x256 with its
  /// 256 sums held in 16 registers unrolled the loop over 16-row blocks 16 times, 56 KB of code: 2.08 us against
  /// 1.93 for the same blocks under a loop of 64-row tiles (4 registers, 14 KB), predicted 0.02% cheaper before.
  Cost code_cache_bytes = 32768;
  /// 1: a loop that walks its rhs from L2 as one sequential stream (the loop's rhs contiguous, each body's row one
  /// run of two lines or more: a 6x64 tile over the rows of a 64-column B) hides its iterations like one reading
  /// from L1 (hides_iteration). Rows a stride apart (a block of a wider B: the prefetchers follow no stream across
  /// pages) and rows of one line in separate panels keep whole iterations. 0: any rhs from L2 kept them (cost model
  /// 27). bench_models, 0 against 1, one core, alternating in one process: matmul 64x4096x64 0.895-0.925x the time
  /// in seven processes (6x64 tiles over all of K with B from L2 rather than 64-deep K blocks in L1). For any rhs
  /// from L2, conv res5_3x3's 7x32 tiles over panels took 1.165x the time; for any contiguous row, 1024^3 split K
  /// and read B's 4 KiB-strided rows from L2, 1.179x the time.
  Cost streamed_rows_hide_iteration = 1;

  /// The constants for `target`: the defaults describe the AVX-512 and AVX2 hosts this project runs on; a target
  /// with a profile (`kriek calibrate`) gets the constants its measurements give (apply_profile).
  static CostModel for_target(const Target& target);
  /// Replaces the constants a profile measures (impl/cost_profile.cpp says which measurement gives which).
  void apply_profile(const TargetProfile& profile, const Target& target);
  /// A stable digest of every constant (tables record it).
  std::uint64_t fingerprint() const;
};

/// How a node's cost and peak memory follow from its children's:
/// cost = base + sum_i weights[i] * cost(child i); peak = own + elementwise max of the children's peaks.
struct NodeCost {
  Cost base = 0;
  PerOperand<Cost> weights;  ///< one per child (a few: held inline)
  MemoryUse own;
};

/// The node's own part of the cost; children may be Holes (only their Specs are read).
NodeCost node_cost(const ImplNode& node, const Target& target, const CostModel& model);
/// The same for a node of `spec` and `kind` whose children implement `children` (in child order), without the
/// node: what the DP calls for every action (sched's Expansion).
NodeCost node_cost(const Spec& spec, const NodeKind& kind, std::span<const Spec> children, const Target& target,
                   const CostModel& model);

/// The memory the nodes around the `index`-th hole of `root` (holes() order) hold while it runs: the own buffers
/// of every node on the path from the root to it. A completion of the hole shares the levels with them (the REPL
/// completes a hole within the limits less this, as the DP gives a child what its parents leave).
MemoryUse memory_around_hole(const ImplPtr& root, std::size_t index, const Target& target, const CostModel& model);

/// Cost and peak memory of a whole tree; Holes count as free (cost 0, no memory).
struct ImplCost {
  Cost cost = 0;
  MemoryUse peak;
};
ImplCost evaluate(const ImplPtr& impl, const Target& target, const CostModel& model);

/// Cache lines a tensor of this TensorSpec touches (rows of a strided tile count separately).
std::int64_t lines_touched(const TensorSpec& t);

}  // namespace kriek
