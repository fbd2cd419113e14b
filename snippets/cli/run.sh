mathy-envs run poly --agent random --episodes 50 --seed 0
mathy-envs run poly --agent swarm --episodes 5 --seed 0
