"""Army Forge's two list formats, "Share as File" and what a share link answers: read into
armylist/1 (reading.py), the door a list document comes in by, either format or ours
(imports.py), and a list written back as a "Share as File" document (writing.py)."""
