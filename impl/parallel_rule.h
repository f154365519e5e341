// When a Spec is worth a thread team: the one rule by which enumerate_actions offers parallel loops (and the
// sparse DP its parallel cuts, and the cost model prices buffers a team shares), and the bound below which no Spec
// of a subtree can be parallel, which canonical rule 1 (sched/canonical.h) reads to drop serial_only where it
// forbids nothing.
#pragma once

#include <cstdint>

#include "spec/spec.h"

namespace kriek {

/// Parallel loops only for Specs of at least this much work (2^18 operations, matmul 51^3): a thread team costs
/// about a thousand cycles to start (the cost model's parallel_launch), so below it a parallel loop does not pay;
/// from it up the DP weighs the launch against the split work (matmul 64^3 on 2 threads 1.34x, 82x99x63 1.48x its
/// serial pick). 2^19 until session twenty-six, which left 63^3 serial; at 2^18, kernels from `kriek library` raced
/// in the peer driver's process on 2 threads (Cascade Lake VM, two runs each, against the same libxsmm): 63^3 1.34-
/// 1.44x its serial kernel (against libxsmm, which splits M between two OpenMP threads: 0.75-0.91 -> 0.98-1.09),
/// 32x52x93 1.28-1.57x, 50x50x70 1.44-1.51x, 40x64x64 1.06-1.14x. At 2^17 48^3 and 40x40x60 gained 1.13-1.21x
/// but 32x48x64 took 1.16-1.39x and 24x64x64 up to 1.5x the time of their serial kernels: the model does not see
/// what a team costs there.
inline constexpr double kParallelMinFlops = 1 << 18;
/// ... counted in registers of this many lanes (AVX-512's f32: the widest kriek targets): a matmul whose output rows
/// are narrower than a register takes the time of whole registers (flop_count with lanes). 2 threads against the
/// serial picks: 1024x64x2 (2^18 operations) 2.35 -> 1.80 us, 96x256x5 1.87 -> 1.68 us.
inline constexpr std::int64_t kParallelLanes = 16;

/// The same for a Move, a Zero or an elementwise op, which stream: elements copied or cleared (64 KiB of f32,
/// about 2 us from L3, where a team costs well under one). A padded conv's image copy and zeroed buffer run before
/// the conv's own parallel loop; serial, they were 15-20% of a 2-thread res3a_3x3s2 (1x56x56x64, stride 2), whose
/// 2-thread speed-up was 1.54. From 2^16 elements down to 2^14 the 14x14x256 images of ResNet's res4 and res5a
/// layers (50,176 elements) are copied by both cores too: on 2 threads, 3 runs each against the serial copy,
/// conv[pad=1] 1x14x14x256 3x3x256x256 packed 582 -> 568 us, its stride-2 3x3x256x512 sibling 385 -> 374 us.
inline constexpr std::int64_t kParallelMinElements = 1 << 14;

/// Whether `spec` is worth a parallel loop (serial_only aside): kParallelMinFlops of work, or for a Move, a Zero, an
/// elementwise op or a pipeline of them (a few instructions per element, bound by the level it streams from, like
/// a copy) kParallelMinElements elements. 2 threads, below 2^19 elements, against their serial picks: relu 256x256
/// 5.9 -> 3.4 us, add 256x256 1x256 5.8 -> 3.7, relu 128x128 1.45 -> 1.29, max 333x250 9.2 -> 6.2,
/// compose[add, relu] 256x256 7.2 -> 4.2.
bool parallel_worthwhile(const Spec& spec);

/// Whether `spec` or any Spec an action makes below it may be worth a parallel loop: its work, or the largest
/// buffer below it (an operand, a padded image, a Compose's intermediate) reaching kParallelMinElements. No
/// action makes more work or a larger buffer than these bounds, so where this is false no parallel loop can
/// appear in the subtree.
bool parallel_reachable(const Spec& spec);

}  // namespace kriek
