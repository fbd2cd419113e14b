mathy-envs list
