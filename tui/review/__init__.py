"""The review screen: one reviewer labels their queue, item by item."""
