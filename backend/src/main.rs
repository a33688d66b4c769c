fn main() -> std::process::ExitCode {
    backend::cli::main()
}
