// glibc's malloc cost the server about a sixth of its CPU under load (perf, bench/mixed.sh);
// mimalloc serves the many small short-lived allocations of a request from per-thread pages.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    backend::cli::main()
}
