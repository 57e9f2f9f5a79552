"""Base machinery every layer may use: HTML escaping, progress, start-up, lazy faces.

Belongs here: what the layers share that is not a number or a name a user
meets (:mod:`relmodel.units`, :mod:`relmodel.errors` and the formatting of
:mod:`relmodel.tables` stay at the top, where users import them).
:mod:`.escape` (the one
HTML-escape helper), :mod:`.progress` (progress and Ctrl-C in long loops),
:mod:`.quiet_start` (Ctrl-C while the command imports), :mod:`.std_fds`
(closed standard streams opened on the null device), :mod:`.lazy`
(package faces that load a module on first use) and :mod:`.outputs` (writing a
file the user named: never through a link, never over a file unasked).

May import: the standard library and :mod:`relmodel.errors` only.
"""

__all__ = []
