// MPI for `kriek library` under `mpirun`: initialized only when the process was started by an MPI launcher
// (Open MPI's OMPI_COMM_WORLD_SIZE or PMI's PMI_SIZE in the environment), so a plain `kriek` never touches MPI.
// Built without MPI (no Open MPI at configure time), a launched kriek says so instead of running N copies.
// The ranks of a node share its cores as the OS schedules them: mpirun's default binding of one core per rank made
// each rank detect a one-core machine and build serial kernels, not the node's library (so the session undoes it,
// before anything detects the host).
#pragma once

#include <cstddef>
#include <string>

namespace kriek::tools {

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Waits for every rank; returns false when some rank reported failure (`ok` false) before the barrier.
  bool barrier(bool ok) const;
  /// Rank 0's `text`, on every rank.
  std::string broadcast(const std::string& text) const;
  /// Hands out 0, 1, 2, ... across all ranks, each number once (a counter on rank 0 that every rank
  /// fetches-and-increments), so ranks take work as they finish it rather than in fixed shards. Collective: every
  /// rank calls start_counter() before and stop_counter() after its next_index() calls.
  void start_counter();
  std::size_t next_index();
  void stop_counter();

 private:
  /// Lets this process run on every online core again (mpirun bound it to one).
  static void unbind();

  int rank_ = 0;
  int size_ = 1;
  bool initialized_ = false;
  void* window_ = nullptr;  ///< the counter's MPI window (MPI_Win), when started
  long* counter_ = nullptr;
  std::size_t local_next_ = 0;  ///< the counter without MPI (one process)
};

}  // namespace kriek::tools
