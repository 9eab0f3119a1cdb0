from .transfer import fetch_pair
