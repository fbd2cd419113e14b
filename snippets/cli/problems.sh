mathy-envs problems poly --difficulty normal -n 5 --seed 1
