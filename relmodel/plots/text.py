"""Text from data drawn as written: a name is never read as mathtext.

Matplotlib reads a string with two unescaped ``$`` as mathtext: a cause
called ``Cost $5 to $10`` is drawn as math, and ``$\\href{x}{y}$`` stops the
figure from drawing at all.  Every name that comes from data, a file or a
parameter (titles, axis labels, legend entries, tick labels, annotations)
passes through :func:`literal` before it reaches a figure; matplotlib turns
each ``\\$`` back into a plain ``$`` when it draws.
"""

__all__ = ["literal", "literals"]


def literal(value):
    """``value`` as a string matplotlib draws exactly as written (each ``$`` escaped).

    Examples
    --------
    >>> literal("Cost $5 to $10")
    'Cost \\\\$5 to \\\\$10'
    >>> from matplotlib.text import Text
    >>> Text(text=literal("$x^2$"))._preprocess_math(literal("$x^2$"))
    ('$x^2$', False)
    """
    return str(value).replace("$", "\\$")


def literals(values):
    """Each of ``values`` through :func:`literal`, as a list (tick labels, legend entries)."""
    return [literal(v) for v in values]
