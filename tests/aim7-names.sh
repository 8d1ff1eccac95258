# tests/aim7-names.sh: a workfile in AIM7 1.1's test names, as LKP's aim7 jobs write it, runs; `list -v` names the alias.
. "$(dirname "$0")/lib.sh"

# LKP's aim7 writes this workfile for its creat-clo job (AIM7 1.1 names
# the test so; reaim and aimsweep call it creat_clo).
printf 'FILESIZE: 1M\nPOOLSIZE: 10M\n10 creat-clo\n' >"$test_dir/workfile"
expect_status 0 run_aimsweep run --levels 2 -t 1 -w 0.2 -d "$scratch" \
	-o "$out" "$test_dir/workfile"
json=$(latest_result)
jq_check "$json" '.status == "complete" and .levels[0].status == "ok"' \
	"the creat-clo workfile ran"
jq_check "$json" '[.mix.jobs[].name] == ["creat_clo"]' \
	"creat-clo recorded under the job's name, creat_clo"
jq_check "$json" '.levels[0].jobs[0].ops > 0 and .levels[0].jobs[0].errors == 0' \
	"creat_clo ran cleanly"
check_scratch_empty

expect_status 0 run_aimsweep list jobs -v
awk '/^  creat_clo /{ found = 1; next } found && /^  [^ ]/{ exit }
    found && /AIM7 1.1 name, also accepted: creat-clo$/{ ok = 1 }
    END { exit !ok }' "$test_dir/stdout" ||
	fail "list -v does not give creat_clo's AIM7 1.1 name: $(grep -A3 '^  creat_clo ' "$test_dir/stdout")"
check_no_processes
pass
