"""A SIGKILL blames memory only on evidence (issue 31.4): the kernel's size near the limit when last
sampled, or the OOM killer's count rising around the death. Fake /proc and cgroup files, no kernel."""

from __future__ import annotations

import os
from pathlib import Path

from ghostbook.kernel.death import death_reason, describe_exit
from ghostbook.kernel.memory import MemoryWatch, SystemFiles, memory_limit

PAGE = os.sysconf("SC_PAGE_SIZE")
GB = 1_000_000_000


def fake_system(tmp_path: Path, *, ram: int = 16 * GB, cgroup_limit: str | None = None, oom: int = 0,
                resident: int = 100_000_000, pid: int = 4242) -> SystemFiles:
    proc, cgroup = tmp_path / "proc", tmp_path / "cgroup"
    (proc / "self").mkdir(parents=True)
    (proc / str(pid)).mkdir()
    (proc / "meminfo").write_text(f"MemTotal:       {ram // 1024} kB\nMemFree:        1000 kB\n")
    (proc / "self" / "cgroup").write_text("0::/user.slice/app\n")
    if cgroup_limit is not None:
        (cgroup / "user.slice" / "app").mkdir(parents=True)
        (cgroup / "user.slice" / "app" / "memory.max").write_text(cgroup_limit + "\n")
    (proc / "vmstat").write_text(f"nr_free_pages 1\noom_kill {oom}\n")
    set_resident(SystemFiles(proc, cgroup), pid, resident)
    return SystemFiles(proc, cgroup)


def set_resident(files: SystemFiles, pid: int, resident: int) -> None:
    (files.proc / str(pid) / "statm").write_text(f"999999 {resident // PAGE} 10 1 0 10 0\n")


def test_the_limit_is_the_ram_or_the_cgroup_limit_whichever_is_lower(tmp_path: Path) -> None:
    assert memory_limit(fake_system(tmp_path / "a")) == 16 * GB // 1024 * 1024
    assert memory_limit(fake_system(tmp_path / "b", cgroup_limit="max")) == 16 * GB // 1024 * 1024
    assert memory_limit(fake_system(tmp_path / "c", cgroup_limit=str(2 * GB))) == 2 * GB


def test_a_small_kernel_killed_by_sigkill_is_not_said_to_have_run_out_of_memory(tmp_path: Path) -> None:
    watch = MemoryWatch(4242, fake_system(tmp_path))
    assert watch.evidence() is None
    assert describe_exit(-9, watch.evidence()) == "killed by signal 9 (SIGKILL)"
    assert death_reason(-9) == "The kernel died: killed by signal 9 (SIGKILL)"


def test_a_kernel_near_the_limit_when_last_sampled_may_have_run_out(tmp_path: Path) -> None:
    files = fake_system(tmp_path, cgroup_limit=str(2 * GB))
    watch = MemoryWatch(4242, files)
    set_resident(files, 4242, int(1.9 * GB))
    watch.sample()
    (files.proc / "4242" / "statm").write_text("0 0 0 0 0 0 0\n")  # a zombie now: the last sample stands
    watch.sample()
    assert describe_exit(-9, watch.evidence()) == (
        "killed by signal 9 (SIGKILL); it may have run out of memory (it used 1.9 GB of 2.0 GB when last measured)")


def test_the_oom_killer_running_around_the_death_is_evidence(tmp_path: Path) -> None:
    files = fake_system(tmp_path, oom=3)
    watch = MemoryWatch(4242, files)
    assert watch.evidence() is None
    (files.proc / "vmstat").write_text("oom_kill 4\n")
    assert "out-of-memory killer" in describe_exit(-9, watch.evidence())


def test_other_signals_and_exits_never_mention_memory() -> None:
    assert describe_exit(-15, "it used a lot") == "killed by signal 15 (SIGTERM)"
    assert describe_exit(3) == "exited with code 3"
    assert describe_exit(None) == "ended for an unknown reason"


def test_without_proc_files_there_is_no_evidence(tmp_path: Path) -> None:
    watch = MemoryWatch(1, SystemFiles(tmp_path / "none", tmp_path / "none"))
    assert watch.limit is None and watch.evidence() is None
