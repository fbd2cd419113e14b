mathy-envs bench --quick --json
