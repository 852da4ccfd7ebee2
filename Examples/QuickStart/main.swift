import ModelStore
print("placeholder")
