"""One profile: the GraphFrame, its operations, its text tree and its exports."""

from glade.profile.graphframe import GraphFrame

__all__ = ["GraphFrame"]
