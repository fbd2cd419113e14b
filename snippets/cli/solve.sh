mathy-envs solve "4x + 2y + 3x + 7y"
mathy-envs solve "(x + 2)(x + 3)" --env binomial --seed 1
