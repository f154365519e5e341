// MpiSession (see mpi_session.h): MPI_Init_thread / MPI_Finalize around a launched kriek, and a barrier that
// also agrees whether every rank succeeded (MPI_Allreduce of a flag).
#include "tools/mpi_session.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "spec/error.h"

#ifdef KRIEK_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // the C API only: Open MPI's C++ bindings need a library kriek does not link
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace kriek::tools {
namespace {

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    const char* v = std::getenv(var);
    if (v && *v) return true;
  }
  return false;
}

}  // namespace

MpiSession::MpiSession() {
  if (!launched_by_mpi()) return;
#ifdef KRIEK_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ > 1) unbind();
#else
  user_error("this kriek was built without MPI (install libopenmpi-dev and rebuild); run it without mpirun, or "
             "shard with --shard I/N");
#endif
}

void MpiSession::unbind() {
  cpu_set_t all;
  CPU_ZERO(&all);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < online && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
  sched_setaffinity(0, sizeof all, &all);  // best effort: a cpuset that forbids it leaves the binding as it was
}

MpiSession::~MpiSession() {
#ifdef KRIEK_HAVE_MPI
  if (initialized_) MPI_Finalize();
#endif
}

bool MpiSession::barrier(bool ok) const {
#ifdef KRIEK_HAVE_MPI
  if (initialized_) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
  }
#endif
  return ok;
}

std::string MpiSession::broadcast(const std::string& text) const {
#ifdef KRIEK_HAVE_MPI
  if (initialized_) {
    int size = static_cast<int>(text.size());
    MPI_Bcast(&size, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string out = rank_ == 0 ? text : std::string(static_cast<std::size_t>(size), '\0');
    MPI_Bcast(out.data(), size, MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }
#endif
  return text;
}

void MpiSession::start_counter() {
  local_next_ = 0;
#ifdef KRIEK_HAVE_MPI
  if (initialized_) {
    MPI_Win win;
    MPI_Win_allocate(rank_ == 0 ? static_cast<MPI_Aint>(sizeof(long)) : 0, sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &counter_, &win);
    if (rank_ == 0) *counter_ = 0;
    window_ = new MPI_Win(win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
#endif
}

std::size_t MpiSession::next_index() {
#ifdef KRIEK_HAVE_MPI
  if (window_) {
    MPI_Win& win = *static_cast<MPI_Win*>(window_);
    const long one = 1;
    long got = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    return static_cast<std::size_t>(got);
  }
#endif
  return local_next_++;
}

void MpiSession::stop_counter() {
#ifdef KRIEK_HAVE_MPI
  if (window_) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(static_cast<MPI_Win*>(window_));
    delete static_cast<MPI_Win*>(window_);
    window_ = nullptr;
    counter_ = nullptr;
  }
#endif
}

}  // namespace kriek::tools
