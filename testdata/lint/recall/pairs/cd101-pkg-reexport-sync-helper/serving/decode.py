def decode_boxes(rows, labels):
    return [{"box": r[:4], "label": labels[int(r[4])]} for r in rows]
