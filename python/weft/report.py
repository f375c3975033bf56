"""Reports and timelines that show themselves in Jupyter: a Report is a dict (the weft CLI's
JSON report) whose _repr_html_ is a table, and whose "timeline" (a network run's) is a
Timeline; a Timeline is a Chrome-trace / Perfetto document (a dict) whose _repr_svg_ is the
picture `weft trace render` draws: the cycle engine's in cycles, a network run's in
microseconds (one box per node on the accelerator's or the CPU's lane)."""
import html
import json

from . import _weft

__all__ = ["Report", "Timeline"]


class Report(dict):
    """A run's report (a dict); in a notebook, a table of its scalar fields (and per node).
    Its "timeline", when the run kept one, is a Timeline."""

    def __init__(self, report):
        super().__init__(report)
        if isinstance(self.get("timeline"), dict):
            self["timeline"] = Timeline(self["timeline"])

    def _repr_html_(self):
        rows = "".join("<tr><th style='text-align:left'>%s</th><td>%s</td></tr>" % (
            html.escape(str(k)), html.escape(_short(v)))
            for k, v in self.items() if not isinstance(v, (dict, list)) and k != "table")
        nodes = self.get("nodes")
        body = "<table>%s</table>" % rows
        if isinstance(nodes, list) and nodes:
            keys = [k for k in nodes[0] if not isinstance(nodes[0][k], (dict, list))]
            head = "".join("<th>%s</th>" % html.escape(k) for k in keys)
            cells = "".join("<tr>%s</tr>" % "".join(
                "<td>%s</td>" % html.escape(_short(n.get(k))) for k in keys) for n in nodes)
            body += "<table><tr>%s</tr>%s</table>" % (head, cells)
        return body


class Timeline(dict):
    """A timeline document: Chrome trace / Perfetto JSON as a dict (also as .doc)."""

    @property
    def doc(self):
        return self

    def save(self, path):
        """Writes the JSON for chrome://tracing or ui.perfetto.dev."""
        with open(path, "w") as f:
            json.dump(self.doc, f)

    def svg(self, width=1200, title=""):
        """The SVG picture (text); weft.Error when the document is not a Weft timeline."""
        return _weft.timeline_svg(json.dumps(self), width, title)

    def _repr_svg_(self):
        return self.svg()


def _short(v):
    return "%.4g" % v if isinstance(v, float) else str(v)
