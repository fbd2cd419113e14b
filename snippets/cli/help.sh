mathy-envs --help
