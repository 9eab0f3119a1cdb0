from .copies import scores_to_cpu

__all__ = ["scores_to_cpu"]
