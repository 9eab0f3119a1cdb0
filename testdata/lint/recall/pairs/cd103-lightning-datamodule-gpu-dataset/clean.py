import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset


class FeatureDataset(Dataset):
    def __init__(self, arrays) -> None:
        self.arrays = arrays

    def __len__(self) -> int:
        return len(self.arrays)

    def __getitem__(self, idx: int):
        return torch.from_numpy(self.arrays[idx])


class FeatureDataModule(L.LightningDataModule):
    def __init__(self, arrays, batch_size: int = 32) -> None:
        super().__init__()
        self.arrays = arrays
        self.batch_size = batch_size

    def setup(self, stage: str) -> None:
        self.train_set = FeatureDataset(self.arrays)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.train_set, batch_size=self.batch_size, num_workers=4, shuffle=True, pin_memory=True)
