def test_a_report_file_gets_the_mode_an_ordinary_write_gives(tmp_path):
    """Hostile-review finding 10: the temporary-file-then-rename write left reports readable by their owner only."""
    import os
    import stat

    from dpaudit.report.json_report import write_atomically

    target = tmp_path / "audit.json"
    write_atomically(target, "{}")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
