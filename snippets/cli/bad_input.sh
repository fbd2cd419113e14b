mathy-envs problems polynomials || echo "exit status $?"
mathy-envs solve "4x +" || echo "exit status $?"
