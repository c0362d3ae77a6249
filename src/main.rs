fn main() -> std::process::ExitCode {
    dopis::cli::main()
}
