out="$(mktemp -d)"
mathy-envs dataset poly --difficulty easy -n 50 --seed 1 --out "$out"
# The first moves, read back with pyarrow (pandas and datasets read it too):
python - "$out/trajectories.parquet" <<'PY'
import sys
import pyarrow.parquet as pq

for row in pq.read_table(sys.argv[1]).slice(0, 5).to_pylist():
    print(f"{row['problem_id']} {row['step']}  {row['expression']:<34} {row['rule']:<24}"
          f" node {row['node']:>2}  action {row['action']:>4}  reward {row['reward']:+.2f}")
PY
rm -r "$out"
