# Replies piped in, as a model would send them; at a terminal, type them.
printf '2y + 4x + 3x\n3\n2y + 7x\n' | mathy-envs play --problem "4x + 2y + 3x"
