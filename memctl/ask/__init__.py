"""The ask (wake) cycle: route a question → retrieve → answer; may only propose memories into staging/."""
