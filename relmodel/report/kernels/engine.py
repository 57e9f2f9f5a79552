"""The Papermill engine the report runs notebooks with: nbclient's, writing the notebook once.

Papermill's engine writes the whole executed notebook (outputs, figures) to
disk when each cell starts and when it ends, to keep a partial copy if the
process dies.  The report reads the notebook only when it is done, and a
kernel that dies, a cell that times out or a Ctrl-C still ends in the
engine's own clean-up, which writes what ran.  So this engine writes once: at
that clean-up when execution stopped on an exception, and otherwise only
through Papermill's final write.  Imported only when a notebook is executed.
"""

from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines

__all__ = ["ENGINE", "WriteOnceEngine"]

#: The name the engine is registered under with Papermill.
ENGINE = "relmodel-write-once"


class _WriteOnce(NotebookExecutionManager):
    """An execution manager that writes the notebook only when told the run stopped early."""

    stopped = False

    def save(self, **kwargs):
        if self.stopped:
            super().save(**kwargs)
        else:
            self.last_save_time = self.now()


class WriteOnceEngine(NBClientEngine):
    """nbclient's engine with :class:`_WriteOnce` as its manager."""

    @classmethod
    def execute_notebook(cls, nb, kernel_name, output_path=None, progress_bar=True, log_output=False,
                         autosave_cell_every=30, **kwargs):
        manager = _WriteOnce(nb, output_path=output_path, progress_bar=progress_bar, log_output=log_output,
                             autosave_cell_every=autosave_cell_every)
        manager.notebook_start()
        try:
            cls.execute_managed_notebook(manager, kernel_name, log_output=log_output, **kwargs)
        except BaseException:
            manager.stopped = True  # a dead kernel, a timeout, Ctrl-C: keep what ran
            raise
        finally:
            manager.cleanup_pbar()
            manager.notebook_complete()
        return manager.nb


papermill_engines.register(ENGINE, WriteOnceEngine)
