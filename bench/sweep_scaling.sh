#!/bin/sh
# Scaling of `meshcontact sweep poses` over MPI ranks (issue 18): a pose sweep of ROWS poses that move MESH_J through
# MESH_I (and out again, turning), run in one process and under `mpirun -np 2` and `-np 4 --oversubscribe`, one OpenMP
# thread per rank. Runs are paired: each round runs every rank count back to back (in alternating order), so that a
# change of the machine's load hits all of them alike. Every output must be byte-identical to the first one.
# Usage: sweep_scaling.sh MESHCONTACT MESH_I MESH_J OUTDIR [ROWS [ROUNDS]]
# Writes OUTDIR/sweep_poses.csv (the poses), OUTDIR/sweep_scaling.csv (round,ranks,wall_s,cpu_s,load1) and prints it.
set -eu
exe="$1"
mesh_i="$2"
mesh_j="$3"
out="$4"
rows="${5:-10000}"
rounds="${6:-3}"
mkdir -p "$out"
export OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

# J starts 90 units below I along y, crosses it and ends 90 above, swinging +-5 in x, +-10 in z and turning up to
# 0.5 rad about z: rows without contact (cheap), grazing rows and deep overlaps (costly) in one sweep.
awk -v n="$rows" 'BEGIN {
    print "time,x_i,y_i,z_i,qw_i,qx_i,qy_i,qz_i,x_j,y_j,z_j,qw_j,qx_j,qy_j,qz_j"
    pi = 3.141592653589793
    for (k = 0; k < n; k++) {
        t = k / n
        a = 0.25 * sin(6 * pi * t)
        printf "%.6f,0,0,0,1,0,0,0,%.6f,%.6f,%.6f,%.9f,0,0,%.9f\n", t, 5 * sin(2 * pi * t), -90 + 180 * t,
            10 * cos(2 * pi * t), cos(a), sin(a)
    }
}' >"$out"/sweep_poses.csv

# One run: wall seconds and CPU seconds (user + system of every process of the run, mpirun included, from
# /usr/bin/time), with the load average before it.
run() {
    np="$1"
    res="$out/sweep_np$np.out.csv"
    load=$(cut -d' ' -f1 /proc/loadavg)
    if [ "$np" -eq 1 ]; then
        /usr/bin/time -o "$out"/time.txt -f "%e,%U,%S" \
            "$exe" sweep poses "$mesh_i" "$mesh_j" "$out"/sweep_poses.csv -o "$res" --threads 1
    else
        over=""
        [ "$np" -gt "$(nproc)" ] && over="--oversubscribe"
        # shellcheck disable=SC2086
        /usr/bin/time -o "$out"/time.txt -f "%e,%U,%S" \
            mpirun -np "$np" $over "$exe" sweep poses "$mesh_i" "$mesh_j" "$out"/sweep_poses.csv -o "$res" --threads 1
    fi
    IFS=, read -r wall user sys <"$out"/time.txt
    echo "$round,$np,$wall,$(echo "$user + $sys" | bc),$load" >>"$out"/sweep_scaling.csv
    if [ -f "$out"/sweep_np1.out.csv ] && ! cmp -s "$out"/sweep_np1.out.csv "$res"; then
        echo "sweep_scaling: the output of $np ranks differs from one process" >&2
        exit 1
    fi
}

echo "round,ranks,wall_s,cpu_s,load1" >"$out"/sweep_scaling.csv
round=0
run 1 # the reference output (not counted: round 0 also warms the file cache)
round=1
while [ "$round" -le "$rounds" ]; do
    if [ $((round % 2)) -eq 1 ]; then order="1 2 4"; else order="4 2 1"; fi
    for np in $order; do
        run "$np"
    done
    round=$((round + 1))
done
cat "$out"/sweep_scaling.csv
